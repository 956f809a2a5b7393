import type { FastifyInstance } from 'fastify';
import { UriTooLongError } from '../errors';

/**
 * The longest request target (path and query) the gateway serves, in bytes: 8 KiB, as common
 * servers and proxies allow. Node refuses a whole head over 16 KiB before any route (431).
 */
export const MAX_URL_BYTES = 8 * 1024;

/**
 * Answers `414` to a request whose target is over MAX_URL_BYTES, after the rate limit has counted
 * it (so registered after it) and before any route reads it. fastify's router matches such a
 * request first (build-app.ts lets a path parameter be as long as a head), so it takes the way of
 * every other answer: the hooks, the envelope, one log line.
 */
export function registerUrlLimit(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    // request.url holds the bytes as received, one character each (latin1).
    done(request.url.length > MAX_URL_BYTES ? new UriTooLongError(MAX_URL_BYTES) : undefined);
  });
}
