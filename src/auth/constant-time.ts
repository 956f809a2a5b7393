import { createHash, timingSafeEqual } from 'node:crypto';

// The configured secret (`b`) is the same on every request: its digest is kept, not recomputed.
let knownSecret: string | undefined;
let knownDigest: Buffer | undefined;

function secretDigest(secret: string): Buffer {
  if (knownDigest === undefined || secret !== knownSecret) {
    knownSecret = secret;
    knownDigest = createHash('sha256').update(secret, 'utf8').digest();
  }
  return knownDigest;
}

/**
 * Compares a presented value `a` with a configured secret `b` in time independent of where they
 * differ (and of their lengths).
 */
export function constantTimeEquals(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  return timingSafeEqual(da, secretDigest(b));
}
