import type { FastifyInstance } from 'fastify';

/**
 * Headers on every answer. JSON answers cannot be framed or run as a page (`frame-ancestors
 * 'none'`, `default-src 'none'`); the GraphiQL page sets its own CSP, which is kept. Answers to
 * requests carrying credentials are `no-store` unless the route chose a policy (assets do).
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'no-referrer');
    reply.header('X-Frame-Options', 'DENY');
    reply.header('Cross-Origin-Resource-Policy', 'same-origin');
    if (!reply.hasHeader('Content-Security-Policy')) reply.header('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    if (request.headers.authorization !== undefined || !reply.hasHeader('Cache-Control')) reply.header('Cache-Control', 'no-store');
    reply.removeHeader('X-Powered-By');
    done(null, payload);
  });
}
