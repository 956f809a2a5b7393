import { setTimeout as sleep } from 'node:timers/promises';

/** What the pacer learns from an answer: HubSpot's `X-HubSpot-RateLimit-*` headers. */
function headerNumber(headers: Headers, name: string): number | null {
  const raw = headers.get(name);
  return raw !== null && /^\d+$/.test(raw.trim()) ? Number(raw) : null;
}

/** What HubSpot's last answer said of the requests left, per window; null where it said nothing. */
export interface CrmApiBudget {
  /** `X-HubSpot-RateLimit-Remaining` / `-Max`: the rolling window (10 s for private apps). */
  rolling: { remaining: number; max: number | null } | null;
  /** `X-HubSpot-RateLimit-Daily-Remaining` / `-Daily`: the day, in the account's time zone. */
  daily: { remaining: number; max: number | null } | null;
}

/**
 * Spaces one client's requests to stay inside HubSpot's limits instead of running into `429`s:
 * private apps get a rolling window of requests per 10 seconds, announced on each answer as
 * `X-HubSpot-RateLimit-Remaining` / `-Interval-Milliseconds`; when none remain the next request
 * waits out the interval. The search endpoints answer without those headers and allow a few
 * requests per second per account, hence a fixed spacing for them.
 */
export class RequestPacer {
  #notBefore = 0;
  #searchNotBefore = 0;
  #budget: CrmApiBudget = { rolling: null, daily: null };

  constructor(private readonly searchIntervalMs: number) {}

  /** Waits until a request of this kind may go. */
  async ready(kind: 'standard' | 'search'): Promise<void> {
    const at = Math.max(this.#notBefore, kind === 'search' ? this.#searchNotBefore : 0);
    const wait = at - Date.now();
    if (wait > 0) await sleep(wait);
    if (kind === 'search') this.#searchNotBefore = Date.now() + this.searchIntervalMs;
  }

  /** What the last answers that carried rate-limit headers said (for the gateway's metrics). */
  get budget(): CrmApiBudget {
    return this.#budget;
  }

  /** Reads the rate-limit headers of an answer. */
  observe(headers: Headers): void {
    const remaining = headerNumber(headers, 'x-hubspot-ratelimit-remaining');
    const daily = headerNumber(headers, 'x-hubspot-ratelimit-daily-remaining');
    if (remaining !== null || daily !== null)
      this.#budget = {
        rolling:
          remaining === null
            ? this.#budget.rolling
            : { remaining, max: headerNumber(headers, 'x-hubspot-ratelimit-max') },
        daily:
          daily === null
            ? this.#budget.daily
            : { remaining: daily, max: headerNumber(headers, 'x-hubspot-ratelimit-daily') },
      };
    if (remaining !== 0) return;
    const interval = headerNumber(headers, 'x-hubspot-ratelimit-interval-milliseconds') ?? 10_000;
    this.#notBefore = Math.max(this.#notBefore, Date.now() + interval);
  }

  /** Holds every request back for `ms` (a `429`'s Retry-After applies to the whole client). */
  holdFor(ms: number): void {
    this.#notBefore = Math.max(this.#notBefore, Date.now() + ms);
  }
}
