import type { IncomingMessage } from 'node:http';

/**
 * Whether a WebSocket upgrade may go on, by its `Origin`, as CORS decides for a browser's
 * request: the gateway's own origin (GraphiQL, served by it), or one of `allowed` (the origins
 * browsers may call the API from). A request without an Origin is not a browser's, which always
 * sends one on a WebSocket, and is left to the token like any other call.
 */
export function originAllowed(request: IncomingMessage, allowed: readonly string[]): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  if (allowed.includes('*') || allowed.includes(origin)) return true;
  const host = request.headers.host;
  if (host === undefined) return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}
