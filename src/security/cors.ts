import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** What a browser page on an allowed origin may send, beyond the CORS-safelisted requests. */
const ALLOWED = {
  // The contract's methods, its `DEL` included (browsers send any method a preflight allows).
  methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'DEL'],
  allowedHeaders: ['Authorization', 'Content-Type'],
  // What a page may read of an answer: the request id to quote, the rate-limit fields, 429's wait.
  exposedHeaders: ['x-request-id', 'ratelimit', 'ratelimit-policy', 'retry-after'],
} as const;

/**
 * CORS for the origins of CORS_ORIGINS (none: nothing is registered, and a browser on another
 * origin is refused by the browser itself, as no answer allows it). On every route, /graphql and
 * REST alike: a preflight (`OPTIONS` with `Origin`) is answered 204 in the onRequest hook, before
 * authentication and the rate limit look at it, and every answer to an allowed origin carries
 * `Access-Control-Allow-Origin` (with `Vary: Origin`), its errors included, so a page can read a
 * 401 or a 429. No credentials: browsers send no cookies, the gateway uses none; the bearer token
 * goes in `Authorization`. Registered right after the security headers, before the other hooks.
 */
export async function registerCors(
  app: FastifyInstance,
  origins: readonly string[],
): Promise<void> {
  if (origins.length === 0) return;
  await app.register(cors, {
    origin: [...origins],
    methods: [...ALLOWED.methods],
    allowedHeaders: [...ALLOWED.allowedHeaders],
    exposedHeaders: [...ALLOWED.exposedHeaders],
    credentials: false,
    // A plain OPTIONS (no Origin) gets the same 204 instead of a text/plain 400.
    strictPreflight: false,
    // Browsers may keep a preflight's answer this long (Chromium caps it at 2 hours).
    maxAge: 600,
  });
}
