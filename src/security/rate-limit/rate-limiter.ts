import { TooManyRequestsError } from '../../errors';
import type { RateLimitStore, WindowCount } from './rate-limit-store';

/** Paths never limited: probes must answer whatever the traffic. */
const UNLIMITED = new Set(['/healthz', '/readyz']);

export interface RateLimitOptions {
  /** Requests allowed per window and key. */
  limit: number;
  windowSeconds: number;
  store: RateLimitStore;
}

/** The two IETF RateLimit fields of a counted request (draft-ietf-httpapi-ratelimit-headers). */
export type RateLimitFields = Record<'ratelimit-policy' | 'ratelimit', string>;

/**
 * The rules of the rate limit, applied by its fastify hook (rate-limit.hook.ts): per verified
 * token subject, else per client address, in fixed windows.
 */
export class RateLimiter {
  private readonly windowMs: number;

  private readonly policy: string;

  constructor(private readonly options: RateLimitOptions) {
    this.windowMs = options.windowSeconds * 1000;
    this.policy = `"default";q=${options.limit};w=${options.windowSeconds}`;
  }

  /** Whether requests to this URL (path and query) are counted. */
  limits(url: string): boolean {
    const query = url.indexOf('?');
    return !UNLIMITED.has(query === -1 ? url : url.slice(0, query));
  }

  /** Whose count a request adds to: its verified token subject, else its address. */
  keyOf(subject: string | null, ip: string | undefined): string {
    return subject !== null ? `sub:${subject}` : `ip:${ip}`;
  }

  /** Counts one request. */
  hit(key: string): Promise<WindowCount> {
    return this.options.store.hit(key, this.windowMs);
  }

  /** The fields every limited answer carries. */
  fieldsOf(count: WindowCount): RateLimitFields {
    const remaining = Math.max(0, this.options.limit - count.count);
    return {
      'ratelimit-policy': this.policy,
      ratelimit: `"default";r=${remaining};t=${resetSecondsOf(count)}`,
    };
  }

  /** The 429 for a request over the limit; undefined within it. */
  exceeded(count: WindowCount): TooManyRequestsError | undefined {
    return count.count > this.options.limit
      ? new TooManyRequestsError(resetSecondsOf(count))
      : undefined;
  }

  /** Readies the store (see RateLimitStore.open). */
  async open(): Promise<void> {
    await this.options.store.open?.();
  }

  close(): Promise<void> {
    return this.options.store.close();
  }
}

function resetSecondsOf(count: WindowCount): number {
  return Math.max(1, Math.ceil(count.resetInMs / 1000));
}
