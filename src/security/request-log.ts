import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

/**
 * One structured line per answered request (fastify's own request logging is turned off): request
 * id, method, route pattern (not the raw URL, which may carry ids and query values), status,
 * duration and the verified token subject. Headers and bodies are never logged.
 */
export function registerRequestLog(app: FastifyInstance, logger: Pick<Logger, 'isLevelEnabled'>): void {
  app.addHook('onResponse', (request, reply, done) => {
    // Not even the line's fields when it would not be written (fastify builds routeOptions anew on each read).
    if (!logger.isLevelEnabled('info')) return done();
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
