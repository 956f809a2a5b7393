import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RequestTimeoutError, ServiceUnavailableError } from '../errors';
import { sweepIntervalMs, type RequestBudget } from './request-budget';

/**
 * The longest a request can wait, once its headers are read, for its answer to a budget of
 * `timeoutMs`: the budget plus one sweep. The HTTP server's own request timeout must not be shorter.
 */
export function latestBudgetAnswerMs(timeoutMs: number): number {
  return timeoutMs + sweepIntervalMs(timeoutMs);
}

/**
 * A time budget per request (REQUEST_TIMEOUT_MS, kept by RequestBudget), counted from the moment
 * its headers are read. A request still unanswered then gets an error in the gateway's envelope
 * (a GraphQL error on /graphql), decided by whose fault it is:
 * - its body has not all arrived: 408, `Connection: close`, and the connection is closed once the
 *   answer is written (the rest of the body could not be told from a next request, and a client
 *   trickling a body must not hold a socket);
 * - its body arrived but the gateway is slow (the database, a heavy operation): 503 with
 *   Retry-After, the connection kept.
 * The late handler's own answer is discarded.
 */
export function registerRequestTimeout(
  app: FastifyInstance,
  budget: RequestBudget | undefined,
): void {
  if (budget === undefined) return;
  const { timeoutMs } = budget;

  function answerLate(request: FastifyRequest, reply: FastifyReply): void {
    // Answered, or the client went away (it needs no answer).
    if (reply.sent || request.raw.socket?.destroyed === true) return;
    if (!request.raw.complete) {
      request.log.info({ requestId: request.id, timeoutMs }, 'request body not received in time');
      // Node closes the connection once an answer saying `close` is written.
      reply.header('connection', 'close');
      reply.send(
        new RequestTimeoutError(`The request body was not received within ${timeoutMs} ms`),
      );
      return;
    }
    request.log.warn({ requestId: request.id, timeoutMs }, 'request timed out');
    reply.send(
      new ServiceUnavailableError(
        `The request did not complete within ${timeoutMs} ms; try again shortly`,
      ),
    );
  }

  app.addHook('onClose', (_instance, done) => {
    budget.close();
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
    budget.watch(request.raw, () => answerLate(request, reply));
    done();
  });
  app.addHook('onResponse', (request, _reply, done) => {
    budget.settle(request.raw);
    done();
  });
  // No onRequestAbort hook for clients that go away: fastify would then add a 'close' listener
  // (and a closure) to every request, about a tenth of a cached answer's throughput; the sweep
  // skips them instead.
}
