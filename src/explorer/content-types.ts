import { extname } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.jpg': 'image/jpeg',
  '.svg': 'image/svg+xml',
};

/** Content-Type of a built asset; the build only emits the extensions listed here. */
export function assetContentType(fileName: string): string {
  const type = CONTENT_TYPES[extname(fileName).toLowerCase()];
  if (type === undefined)
    throw new Error(
      `Expected a built asset with one of ${Object.keys(CONTENT_TYPES).join(' ')}, got ${fileName}`,
    );
  return type;
}
