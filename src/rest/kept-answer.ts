import type { Principal } from '../auth/principal';
import { callerKey } from '../data/answer-cache';

/**
 * A kept REST answer: the status and the body exactly as it was serialised, encoded once (a
 * string would be encoded to UTF-8 again on every send), and the route pattern it answered (for
 * the request log).
 */
export interface KeptRestAnswer {
  status: number;
  body: Buffer;
  route: string;
}

/** The media type of every kept answer. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The key of a GET's kept answer: the caller and the raw URL. The same URL always builds the same
 * input (or the same rejection), so the URL as sent stands for the whole request.
 */
export function keptAnswerKey(principal: Principal | null, url: string): string {
  return `${callerKey(principal)}\u0000${url}`;
}
