import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RequestTimeoutError, ServiceUnavailableError, type ErrorWithCode } from '../errors';

/** Tells a write that carries on from a read (src/security/idempotency/idempotency.ts). */
export interface LateWrites {
  /** The answer for a write whose outcome is not known yet; null for a read. */
  lateAnswer(request: FastifyRequest, timeoutMs: number): ErrorWithCode | null;
}

/**
 * A time-out per request (REQUEST_TIMEOUT_MS; 0: none), counted from the moment its headers are
 * read: a timer started on `onRequest` and cleared on `onResponse`. A request still unanswered
 * then gets an error in the gateway's envelope (a GraphQL error on /graphql), decided by whose
 * fault it is:
 * - its body has not all arrived: 408, `Connection: close`, and the connection is closed once the
 *   answer is written (the rest of the body could not be told from a next request, and a client
 *   trickling a body must not hold a socket);
 * - its body arrived but the gateway is slow (the database, a heavy operation): 503, the
 *   connection kept. A read says to try again shortly (Retry-After). A write that has started
 *   carries on and may still be carried out, so its 503 says its outcome is not known, and how to
 *   learn it (`writes`): never "try again shortly".
 * The late handler's own answer is not sent (a write's is recorded for its Idempotency-Key).
 */
export function registerRequestTimeout(
  app: FastifyInstance,
  timeoutMs: number,
  writes: LateWrites,
): void {
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
      writes.lateAnswer(request, timeoutMs) ??
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
