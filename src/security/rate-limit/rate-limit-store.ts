/** What a store answers for one counted request. */
export interface WindowCount {
  /** Requests counted for the key in the current window, this one included. */
  count: number;
  /** Milliseconds until the window ends and the count starts over. */
  resetInMs: number;
}

/**
 * Where request counts live: in memory for one instance (the default), in Redis when instances
 * share the limit. `hit` counts one request for `key` in a fixed window of `windowMs`; a store that
 * needs no I/O answers at once (no promise to wait for on every request).
 */
export interface RateLimitStore {
  hit(key: string, windowMs: number): WindowCount | Promise<WindowCount>;
  /** `hit` for a store that never needs I/O (absent on those that may). */
  hitNow?(key: string, windowMs: number): WindowCount;
  close(): Promise<void>;
}
