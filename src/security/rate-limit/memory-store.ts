import type { RateLimitStore, WindowCount } from './rate-limit-store';

/**
 * Fixed windows per key in a Map. Each key's window starts at its first request; entries whose
 * window has ended are swept once a window, so the map holds at most the keys seen in the last one.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();
  private nextSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const now = this.now();
    if (now >= this.nextSweep) {
      for (const [k, entry] of this.windows) if (entry.endsAt <= now) this.windows.delete(k);
      this.nextSweep = now + windowMs;
    }
    let entry = this.windows.get(key);
    if (!entry || entry.endsAt <= now) {
      entry = { count: 0, endsAt: now + windowMs };
      this.windows.set(key, entry);
    }
    entry.count += 1;
    return { count: entry.count, resetInMs: entry.endsAt - now };
  }

  async close(): Promise<void> {
    this.windows.clear();
  }
}
