import type { FastifyReply, FastifyRequest } from 'fastify';

/** Headers on every answer, whatever its route (names in lower case, as fastify keeps them). */
export const FIXED_SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-resource-policy': 'same-origin',
} as const;

/** The CSP of every answer that is not the GraphiQL page. */
export const JSON_CSP = "default-src 'none'; frame-ancestors 'none'";

/** What every answer starts with; a route may replace the CSP and the cache policy (see cachePolicy). */
export const DEFAULT_HEADERS = {
  ...FIXED_SECURITY_HEADERS,
  'content-security-policy': JSON_CSP,
  'cache-control': 'no-store',
} as const;

/**
 * Puts the headers every answer starts with on a reply; the gateway does it for every request
 * as it arrives (src/server/build-app.ts), and for those fastify refuses before routing. JSON
 * answers cannot be framed or run as a page (`frame-ancestors 'none'`, `default-src 'none'`) and
 * are not stored by caches; the GraphiQL page replaces the CSP with its own, and its assets choose
 * their cache policy through cachePolicy.
 *
 * Why on arrival, not in an onSend hook: every answer sent after that (route, error handler, 404,
 * time budget, rate limit) carries them without a second hook run per answer (about 2% of a kept
 * answer's instructions, counted with callgrind).
 */
export function setSecurityHeaders(reply: FastifyReply): void {
  reply.headers(DEFAULT_HEADERS);
}

/** A route's own cache policy, unless the request carries credentials: such answers are never stored. */
export function cachePolicy(request: FastifyRequest, policy: string): string {
  return request.headers.authorization === undefined ? policy : 'no-store';
}
