import type { FastifyInstance } from 'fastify';
import { ServiceUnavailableError } from '../errors';

/**
 * A time budget per request (REQUEST_TIMEOUT_MS): a request still unanswered then gets a 503
 * envelope (GraphQL error on /graphql) with Retry-After, instead of holding the client while the
 * database or a slow operation piles work up. The late handler's own answer is discarded.
 */
export function registerRequestTimeout(app: FastifyInstance, timeoutMs: number): void {
  if (timeoutMs <= 0) return;
  const timers = new WeakMap<object, NodeJS.Timeout>();
  app.addHook('onRequest', (request, reply, done) => {
    const timer = setTimeout(() => {
      if (reply.sent) return;
      request.log.warn({ requestId: request.id, timeoutMs }, 'request timed out');
      reply.send(new ServiceUnavailableError(`The request did not complete within ${timeoutMs} ms; try again shortly`));
    }, timeoutMs);
    timer.unref();
    timers.set(request, timer);
    done();
  });
  app.addHook('onResponse', (request, _reply, done) => {
    clearTimeout(timers.get(request));
    done();
  });
  // A client that went away needs no 503.
  app.addHook('onRequestAbort', (request, done) => {
    clearTimeout(timers.get(request));
    done();
  });
}
