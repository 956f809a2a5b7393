import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceUnavailableError } from '../errors';

/** How often the sweep runs, as a share of the budget: a request is answered 503 within 1.1× it. */
const SWEEPS_PER_BUDGET = 10;

/**
 * A time budget per request (REQUEST_TIMEOUT_MS): a request still unanswered then gets a 503
 * envelope (GraphQL error on /graphql) with Retry-After, instead of holding the client while the
 * database or a slow operation piles work up. The late handler's own answer is discarded.
 *
 * Why a sweep and not a timer per request: every request has the same budget, so requests in
 * arrival order are also in deadline order, and one unref'd interval looking at the oldest ones
 * finds every late request. A timer per request (create, unref, clear, and a map to find it) cost
 * about a twentieth of the throughput of a cached answer.
 */
export function registerRequestTimeout(app: FastifyInstance, timeoutMs: number): void {
  if (timeoutMs <= 0) return;
  // Insertion order is deadline order (see above).
  const inFlight = new Map<FastifyRequest, { reply: FastifyReply; deadline: number }>();

  function sweep(): void {
    const now = Date.now();
    for (const [request, { reply, deadline }] of inFlight) {
      if (deadline > now) break;
      inFlight.delete(request);
      // Answered, or the client went away (it needs no 503).
      if (reply.sent || request.raw.socket?.destroyed === true) continue;
      request.log.warn({ requestId: request.id, timeoutMs }, 'request timed out');
      reply.send(new ServiceUnavailableError(`The request did not complete within ${timeoutMs} ms; try again shortly`));
    }
  }

  const sweeper = setInterval(sweep, Math.max(1, Math.floor(timeoutMs / SWEEPS_PER_BUDGET)));
  sweeper.unref();
  app.addHook('onClose', (_instance, done) => {
    clearInterval(sweeper);
    inFlight.clear();
    done();
  });

  app.addHook('onRequest', (request, reply, done) => {
    inFlight.set(request, { reply, deadline: Date.now() + timeoutMs });
    done();
  });
  app.addHook('onResponse', (request, _reply, done) => {
    inFlight.delete(request);
    done();
  });
  // No onRequestAbort hook for clients that go away: fastify would then add a 'close' listener
  // (and a closure) to every request, about a tenth of a cached answer's throughput; the sweep
  // skips them instead.
}
