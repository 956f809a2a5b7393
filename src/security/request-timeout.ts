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
  app.addHook('onRequest', async (request, reply) => {
    const timer = setTimeout(() => {
      if (reply.sent) return;
      request.log.warn({ requestId: request.id, timeoutMs }, 'request timed out');
      reply.send(new ServiceUnavailableError(`The request did not complete within ${timeoutMs} ms; try again shortly`));
    }, timeoutMs);
    timer.unref();
    timers.set(request, timer);
  });
  const clear = async (request: object): Promise<void> => clearTimeout(timers.get(request));
  app.addHook('onResponse', clear);
  // A client that went away needs no 503.
  app.addHook('onRequestAbort', clear);
}
