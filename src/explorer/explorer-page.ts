import type { AssetManifest } from './asset-manifest';

/** What the browser side of the explorer reads from the page's `#graphiql-config` data block. */
export interface ExplorerConfig {
  /** The GraphQL endpoint the explorer posts to, same origin. */
  endpoint: string;
  defaultQuery: string;
  /** JSON text put in the header editor. */
  defaultHeaders: string;
}

/** URL prefix the hashed assets are served under. */
export const EXPLORER_ASSET_PREFIX = '/graphiql/assets/';

/**
 * Only the gateway's own origin: scripts, styles, fonts, images and fetches. The config travels in
 * a JSON data block, which browsers do not execute, so no `'unsafe-inline'` is needed anywhere.
 */
export const EXPLORER_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Keeps `</script>` and friends in JSON from closing the data block early. */
function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026');
}

function escapeAttribute(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/** The explorer's HTML page: the hashed stylesheet and script of the build, and the config block. */
export function renderExplorerPage(manifest: AssetManifest, config: ExplorerConfig): string {
  const stylesheet = escapeAttribute(EXPLORER_ASSET_PREFIX + manifest.stylesheet);
  const script = escapeAttribute(EXPLORER_ASSET_PREFIX + manifest.script);
  const icon = escapeAttribute(EXPLORER_ASSET_PREFIX + manifest.icon);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pipeline Gateway · GraphiQL</title>
<link rel="icon" type="image/svg+xml" href="${icon}">
<link rel="stylesheet" href="${stylesheet}">
<script id="graphiql-config" type="application/json">${jsonForScript(config)}</script>
<script defer src="${script}"></script>
</head>
<body>
<div id="graphiql">Loading GraphiQL…</div>
</body>
</html>
`;
}
