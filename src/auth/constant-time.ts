import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * A check of presented values against one configured secret, in time independent of where they
 * differ (and of their lengths): both sides are compared as SHA-256 digests, the secret's
 * computed once.
 */
export function secretMatcher(secret: string): (presented: string) => boolean {
  const expected = digest(secret);
  return (presented) => timingSafeEqual(digest(presented), expected);
}
