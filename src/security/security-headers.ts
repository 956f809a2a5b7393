import type { FastifyInstance } from 'fastify';

/** Headers on every answer, whatever its route. */
export const FIXED_SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Resource-Policy': 'same-origin',
} as const;

/** The CSP of every answer that is not the GraphiQL page. */
export const JSON_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * Headers on every answer. JSON answers cannot be framed or run as a page (`frame-ancestors
 * 'none'`, `default-src 'none'`); the GraphiQL page sets its own CSP, which is kept. Answers to
 * requests carrying credentials are `no-store` unless the route chose a policy (assets do).
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.headers(FIXED_SECURITY_HEADERS);
    if (!reply.hasHeader('Content-Security-Policy')) reply.header('Content-Security-Policy', JSON_CSP);
    if (request.headers.authorization !== undefined || !reply.hasHeader('Cache-Control')) reply.header('Cache-Control', 'no-store');
    reply.removeHeader('X-Powered-By');
    done(null, payload);
  });
}
