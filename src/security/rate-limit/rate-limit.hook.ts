import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WindowCount } from './rate-limit-store';
import type { RateLimiter } from './rate-limiter';

/**
 * Limits requests (RateLimiter). Every limited answer carries the IETF RateLimit fields
 * (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "default";q=<limit>;w=<window s>` and
 * `RateLimit: "default";r=<remaining>;t=<s to reset>`; over the limit: 429 with `Retry-After`.
 * A store failure lets the request through (logged): an outage of the counter must not become an
 * outage of the gateway.
 */
export function registerRateLimit(app: FastifyInstance, limiter: RateLimiter): void {
  function counted(reply: FastifyReply, count: WindowCount, done: (error?: Error) => void): void {
    reply.headers(limiter.fieldsOf(count));
    done(limiter.exceeded(count));
  }

  function storeFailed(request: FastifyRequest, error: unknown, done: () => void): void {
    request.log.warn(
      { err: error, requestId: request.id },
      'rate-limit store unavailable; request not counted',
    );
    done();
  }

  // Callback style: the memory store answers at once, and an async hook would cost a promise per request.
  app.addHook(
    'onRequest',
    (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
      if (!limiter.limits(request.url)) return done();
      let count: WindowCount | Promise<WindowCount>;
      try {
        count = limiter.hit(limiter.keyOf(request.tokenSubject, request.ip));
      } catch (error) {
        return storeFailed(request, error, done);
      }
      if (count instanceof Promise)
        count.then(
          (c) => counted(reply, c, done),
          (error: unknown) => storeFailed(request, error, done),
        );
      else counted(reply, count, done);
    },
  );
  app.addHook('onClose', async () => {
    await limiter.close();
  });
}
