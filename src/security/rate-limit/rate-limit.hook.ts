import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TooManyRequestsError } from '../../errors';
import type { RateLimitStore, WindowCount } from './rate-limit-store';

/** Paths never limited: probes must answer whatever the traffic. */
const UNLIMITED = new Set(['/healthz', '/readyz']);

export interface RateLimitOptions {
  /** Requests allowed per window and key. */
  limit: number;
  windowSeconds: number;
  store: RateLimitStore;
}

/**
 * Limits requests per verified token subject, else per client address, in fixed windows.
 * Every limited answer carries the IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers):
 * `RateLimit-Policy: "default";q=<limit>;w=<window s>` and `RateLimit: "default";r=<remaining>;t=<s to reset>`;
 * over the limit: 429 with `Retry-After`. A store failure lets the request through (logged):
 * an outage of the counter must not become an outage of the gateway.
 */
export function registerRateLimit(app: FastifyInstance, options: RateLimitOptions): void {
  const windowMs = options.windowSeconds * 1000;
  const policy = `"default";q=${options.limit};w=${options.windowSeconds}`;

  function counted(reply: FastifyReply, count: WindowCount, done: (error?: Error) => void): void {
    const remaining = Math.max(0, options.limit - count.count);
    const resetSeconds = Math.max(1, Math.ceil(count.resetInMs / 1000));
    reply.header('RateLimit-Policy', policy);
    reply.header('RateLimit', `"default";r=${remaining};t=${resetSeconds}`);
    done(count.count > options.limit ? new TooManyRequestsError(resetSeconds) : undefined);
  }

  function storeFailed(request: FastifyRequest, error: unknown, done: () => void): void {
    request.log.warn({ err: error, requestId: request.id }, 'rate-limit store unavailable; request not counted');
    done();
  }

  // Callback style: the memory store answers at once, and an async hook would cost a promise per request.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    if (UNLIMITED.has(request.url.split('?')[0])) return done();
    const key = request.tokenSubject !== null ? `sub:${request.tokenSubject}` : `ip:${request.ip}`;
    let count: WindowCount | Promise<WindowCount>;
    try {
      count = options.store.hit(key, windowMs);
    } catch (error) {
      return storeFailed(request, error, done);
    }
    if (count instanceof Promise) count.then((c) => counted(reply, c, done), (error: unknown) => storeFailed(request, error, done));
    else counted(reply, count, done);
  });
  app.addHook('onClose', async () => {
    await options.store.close();
  });
}
