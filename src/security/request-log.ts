import type { FastifyInstance } from 'fastify';

/**
 * One structured line per answered request (fastify's own request logging is turned off): request
 * id, method, route pattern (not the raw URL, which may carry ids and query values), status,
 * duration and the verified token subject. Headers and bodies are never logged.
 */
export function registerRequestLog(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      {
        requestId: request.id,
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
        subject: request.tokenSubject,
      },
      'request completed',
    );
    done();
  });
}
