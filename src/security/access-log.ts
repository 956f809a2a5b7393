import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

/** The fields of the one line written per answered request. */
interface AccessLine {
  requestId: string;
  method: string;
  /** The route pattern, not the raw URL (which may carry ids and query values); `unmatched` for none. */
  route: string;
  status: number;
  durationMs: number;
  /** The verified token subject, or null. */
  subject: string | null;
}

function logRequest(logger: Pick<Logger, 'info'>, line: AccessLine): void {
  logger.info({ ...line, durationMs: Math.round(line.durationMs * 10) / 10 }, 'request completed');
}

/**
 * One structured line per answered request (fastify's own request logging is turned off): request
 * id, method, route pattern, status, duration and the verified token subject. Headers and bodies
 * are never logged.
 */
export function registerAccessLog(
  app: FastifyInstance,
  logger: Pick<Logger, 'isLevelEnabled' | 'info'>,
): void {
  app.addHook('onResponse', (request, reply, done) => {
    // Not even the line's fields when it would not be written (fastify builds routeOptions anew on each read).
    if (!logger.isLevelEnabled('info')) return done();
    logRequest(request.log, {
      requestId: request.id,
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: reply.statusCode,
      durationMs: reply.elapsedTime,
      subject: request.tokenSubject,
    });
    done();
  });
}
