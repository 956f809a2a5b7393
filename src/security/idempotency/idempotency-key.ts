import { createHash } from 'node:crypto';
import { BadUserInputError } from '../../errors';

/** The request header naming a write, as in draft-ietf-httpapi-idempotency-key-header. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** Set (`true`) on an answer replayed from a key's record rather than produced again. */
export const REPLAYED_HEADER = 'idempotent-replayed';

/** Longest key accepted: room for a UUID or a client's own composite id. */
export const MAX_KEY_LENGTH = 255;

/** Visible ASCII only: a key is an opaque token a client generates (a UUID, typically). */
const KEY_PATTERN = /^[\x21-\x7e]+$/;

/**
 * The request's Idempotency-Key: null when the header is absent; 400 when it is empty, longer
 * than MAX_KEY_LENGTH, repeated, or holds anything but visible ASCII.
 */
export function readIdempotencyKey(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  const problem = Array.isArray(value)
    ? 'expected one Idempotency-Key header, got several'
    : value.length === 0 || value.length > MAX_KEY_LENGTH
      ? `expected 1 to ${MAX_KEY_LENGTH} characters, got ${value.length}`
      : KEY_PATTERN.test(value)
        ? null
        : 'expected visible ASCII characters only (a UUID, say)';
  if (problem === null) return value as string;
  throw new BadUserInputError(`Invalid Idempotency-Key header: ${problem}`, [
    { field: 'Idempotency-Key', message: problem },
  ]);
}

/** What makes two requests the same one: method, path with its query, and body. */
export interface WriteRequest {
  method: string;
  /** The path and query as sent (`/teams?x=1`). */
  url: string;
  /** The parsed body (undefined without one): compared by its JSON, so layout does not count. */
  body: unknown;
}

export function fingerprintOf(request: WriteRequest): string {
  return createHash('sha256')
    .update(`${request.method}\u0000${request.url}\u0000`)
    .update(request.body === undefined ? '' : JSON.stringify(request.body))
    .digest('base64url');
}

/** The id of a caller's key: a digest, so a long key costs the index no more than a short one. */
export function recordIdOf(caller: string, key: string): string {
  return createHash('sha256').update(`${caller}\u0000${key}`).digest('base64url');
}

/** `POST /teams`, as messages name a request (the path without its query). */
export function describeRequest(method: string, url: string): string {
  return `${method} ${url.split('?')[0]}`;
}
