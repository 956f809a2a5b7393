/**
 * Fixed-window request counter per client key. Small and in-process on purpose: one gateway
 * instance, no shared store; the window map is swept as windows roll so it cannot grow unbounded.
 */
export class FixedWindowLimiter {
  private windowStart = 0;
  private counts = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`FixedWindowLimiter needs a limit of 1 or more, got ${limit}`);
  }

  /** Counts one request for `key`; answers the seconds to wait when over the limit, else 0. */
  hit(key: string, now = Date.now()): number {
    const start = now - (now % this.windowMs);
    if (start !== this.windowStart) {
      this.windowStart = start;
      this.counts = new Map();
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    if (count <= this.limit) return 0;
    return Math.max(1, Math.ceil((start + this.windowMs - now) / 1000));
  }
}
