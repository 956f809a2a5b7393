import { createHash } from 'node:crypto';

/** A file taken out of a stylesheet's `data:` URL. */
export interface ExtractedFile {
  name: string;
  contents: Buffer;
}

const EXTENSIONS: Record<string, string> = {
  'font/woff2': 'woff2',
  'font/woff': 'woff',
  'font/ttf': 'ttf',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/jpeg': 'jpg',
  'image/svg+xml': 'svg',
};

const DATA_URL =
  /url\((['"]?)data:([a-z0-9.+-]+\/[a-z0-9.+-]+)(;charset=[a-z0-9-]+)?(;base64)?,([^'")]*)\1\)/gi;

/**
 * Rewrites every `url(data:...)` of a stylesheet into `url(./<hash>.<ext>)` and returns the files to
 * write beside it. GraphiQL inlines its fonts and icons that way; served as files they need no
 * `data:` exception in the page's Content-Security-Policy, which can then allow `'self'` only.
 */
export function extractDataUrls(css: string): { css: string; files: ExtractedFile[] } {
  const files = new Map<string, ExtractedFile>();
  const rewritten = css.replace(
    DATA_URL,
    (
      match,
      _quote: string,
      mime: string,
      _charset: string | undefined,
      base64: string | undefined,
      payload: string,
    ) => {
      const extension = EXTENSIONS[mime.toLowerCase()];
      if (extension === undefined) {
        throw new Error(
          `Expected only ${Object.keys(EXTENSIONS).join(', ')} data URLs in the GraphiQL stylesheet, got ${mime} in ${match.slice(0, 60)}…`,
        );
      }
      const contents = base64
        ? Buffer.from(payload, 'base64')
        : Buffer.from(decodeURIComponent(payload), 'utf8');
      const name = `${createHash('sha256').update(contents).digest('hex').slice(0, 16)}.${extension}`;
      files.set(name, { name, contents });
      return `url(./${name})`;
    },
  );
  return { css: rewritten, files: [...files.values()] };
}
