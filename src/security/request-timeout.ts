import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RequestTimeoutError, ServiceUnavailableError } from '../errors';

/** How often the sweep runs, as a share of the budget: a request is answered within 1.1× it. */
const SWEEPS_PER_BUDGET = 10;

/** How often the sweep runs for a budget. */
function sweepIntervalMs(timeoutMs: number): number {
  return Math.max(1, Math.floor(timeoutMs / SWEEPS_PER_BUDGET));
}

/**
 * The longest a request can wait, once its headers are read, for its answer to a budget of
 * `timeoutMs`: the budget plus one sweep. The HTTP server's own request timeout must not be shorter.
 */
export function latestBudgetAnswerMs(timeoutMs: number): number {
  return timeoutMs + sweepIntervalMs(timeoutMs);
}

/**
 * A time budget per request (REQUEST_TIMEOUT_MS), counted from the moment its headers are read.
 * A request still unanswered then gets an error in the gateway's envelope (a GraphQL error on
 * /graphql), decided by whose fault it is:
 * - its body has not all arrived: 408, `Connection: close`, and the connection is closed once the
 *   answer is written (the rest of the body could not be told from a next request, and a client
 *   trickling a body must not hold a socket);
 * - its body arrived but the gateway is slow (the database, a heavy operation): 503 with
 *   Retry-After, the connection kept.
 * The late handler's own answer is discarded.
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
      // Answered, or the client went away (it needs no answer).
      if (reply.sent || request.raw.socket?.destroyed === true) continue;
      if (!request.raw.complete) {
        request.log.info({ requestId: request.id, timeoutMs }, 'request body not received in time');
        // Node closes the connection once an answer saying `close` is written.
        reply.header('connection', 'close');
        reply.send(new RequestTimeoutError(`The request body was not received within ${timeoutMs} ms`));
        continue;
      }
      request.log.warn({ requestId: request.id, timeoutMs }, 'request timed out');
      reply.send(new ServiceUnavailableError(`The request did not complete within ${timeoutMs} ms; try again shortly`));
    }
  }

  const sweeper = setInterval(sweep, sweepIntervalMs(timeoutMs));
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
