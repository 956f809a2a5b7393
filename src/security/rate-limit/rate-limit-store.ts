/** What a store answers for one counted request. */
export interface WindowCount {
  /** Requests counted for the key in the current window, this one included. */
  count: number;
  /** Milliseconds until the window ends and the count starts over. */
  resetInMs: number;
}

/**
 * Where request counts live: in memory for one instance (the default), in Redis when instances
 * share the limit. `hit` counts one request for `key` in a fixed window of `windowMs`.
 */
export interface RateLimitStore {
  hit(key: string, windowMs: number): Promise<WindowCount>;
  /**
   * Called once before the app listens, for a store that connects somewhere. Rejects with a
   * ConfigError when the store refuses the configuration (the gateway does not start); with any
   * other error when the store cannot be reached yet (the gateway starts, requests go uncounted).
   */
  open?(): Promise<void>;
  close(): Promise<void>;
}
