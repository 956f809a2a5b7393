import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RequestTimeoutError, ServiceUnavailableError } from '../errors';

/**
 * A time-out per request (REQUEST_TIMEOUT_MS; 0: none), counted from the moment its headers are
 * read: a timer started on `onRequest` and cleared on `onResponse`. A request still unanswered
 * then gets an error in the gateway's envelope (a GraphQL error on /graphql), decided by whose
 * fault it is:
 * - its body has not all arrived: 408, `Connection: close`, and the connection is closed once the
 *   answer is written (the rest of the body could not be told from a next request, and a client
 *   trickling a body must not hold a socket);
 * - its body arrived but the gateway is slow (the database, a heavy operation): 503 with
 *   Retry-After, the connection kept.
 * The late handler's own answer is discarded.
 */
export function registerRequestTimeout(app: FastifyInstance, timeoutMs: number): void {
  if (timeoutMs <= 0) return;
  const timers = new WeakMap<FastifyRequest, NodeJS.Timeout>();

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

  app.addHook('onRequest', (request, reply, done) => {
    const timer = setTimeout(answerLate, timeoutMs, request, reply);
    // A pending time-out alone must not keep the process running.
    timer.unref();
    timers.set(request, timer);
    done();
  });
  app.addHook('onResponse', (request, _reply, done) => {
    clearTimeout(timers.get(request));
    done();
  });
}
