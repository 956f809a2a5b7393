import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { ConfigError } from '../../config';
import type { RateLimiter } from './rate-limiter';

/**
 * Limits requests (RateLimiter). Every limited answer carries the IETF RateLimit fields
 * (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "default";q=<limit>;w=<window s>` and
 * `RateLimit: "default";r=<remaining>;t=<s to reset>`; over the limit: 429 with `Retry-After`.
 *
 * A store failure lets the request through: an outage of the counter must not become an outage
 * of the gateway. It is logged once when failures start (a warning with the reason) and once when
 * the store answers again (how many requests went uncounted), not once per request.
 */
export function registerRateLimit(app: FastifyInstance, limiter: RateLimiter): void {
  let failing = false;
  let uncounted = 0;

  function storeFailed(log: FastifyBaseLogger, error: unknown, requestId?: string): void {
    if (requestId !== undefined) uncounted += 1;
    if (failing) return;
    failing = true;
    log.warn(
      { err: error, requestId },
      'rate-limit store unavailable; requests go through uncounted until it answers',
    );
  }

  function storeAnswered(log: FastifyBaseLogger): void {
    if (!failing) return;
    failing = false;
    log.info({ uncounted }, 'rate-limit store answers again; requests are counted');
    uncounted = 0;
  }

  app.addHook('onReady', async () => {
    try {
      await limiter.open();
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      storeFailed(app.log, error);
    }
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!limiter.limits(request.url)) return;
    let count;
    try {
      count = await limiter.hit(limiter.keyOf(request.tokenSubject, request.ip));
    } catch (error) {
      return storeFailed(request.log, error, request.id);
    }
    storeAnswered(request.log);
    reply.headers(limiter.fieldsOf(count));
    const exceeded = limiter.exceeded(count);
    if (exceeded !== undefined) throw exceeded;
  });
  app.addHook('onClose', async () => {
    await limiter.close();
  });
}
