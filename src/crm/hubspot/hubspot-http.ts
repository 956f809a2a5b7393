// Internal to src/crm/hubspot: one HubSpot request with its timeout, retries and pacing.
import type { Secret } from '../../config';
import {
  describeErrorBody,
  HubSpotAuthError,
  HubSpotRequestError,
  HubSpotUnavailableError,
  type HubSpotErrorBody,
} from './hubspot-errors';
import { RequestPacer, type CrmApiBudget } from './request-pacer';
import { backoffDelay, retryAfterDelay } from './retry-delay';

/** How the client talks to HubSpot; every field but `baseUrl` and `token` has a default. */
export interface HubSpotHttpOptions {
  /** HUBSPOT_BASE_URL, e.g. `https://api.hubapi.com`. */
  baseUrl: string;
  /** HUBSPOT_TOKEN: sent as `Authorization: Bearer`, never logged nor put in an error. */
  token: Secret;
  /** Time limit of one attempt, answer body included; default 30000 ms. */
  timeoutMs?: number;
  /** Attempts of one request, the first included; default 6. */
  maxAttempts?: number;
  /** Backoff before the second attempt, doubled for each further one (with jitter); default 500 ms. */
  baseDelayMs?: number;
  /** Longest backoff; default 30000 ms. */
  maxDelayMs?: number;
  /** Longest `Retry-After` obeyed; one asking for more ends the request now; default 120000 ms. */
  maxRetryAfterMs?: number;
  /** Spacing of search requests (HubSpot allows a few per second per account); default 250 ms. */
  searchIntervalMs?: number;
  /** The jitter source; default Math.random. */
  random?: () => number;
}

export interface HubSpotRequest {
  method: 'GET' | 'POST';
  /** Path under the base URL, e.g. `/crm/v3/owners`. */
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  /** Search endpoints have their own rate limit. */
  kind?: 'standard' | 'search';
}

type Outcome =
  { retry: false; value: unknown } | { retry: true; failure: string; waitMs: number | null };

// 52x: the CDN in front of HubSpot's API answers these when HubSpot itself does not.
const RETRIED_STATUSES = new Set([500, 502, 503, 504, 520, 521, 522, 523, 524]);

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorBodyOf(parsed: unknown): HubSpotErrorBody | null {
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? (parsed as HubSpotErrorBody)
    : null;
}

/** Why fetch threw, in words, without the URL (it is known to the caller) or any header. */
function networkFailure(error: unknown, timeoutMs: number): string {
  const name = (error as { name?: unknown }).name;
  if (name === 'TimeoutError' || name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const message =
    typeof cause?.message === 'string' ? cause.message : String((error as Error).message ?? error);
  return `network error (${code ?? message})`;
}

/** Sends HubSpot requests for one client; owns that client's pacing. */
export class HubSpotHttp {
  readonly #baseUrl: string;
  readonly #token: Secret;
  readonly #timeoutMs: number;
  readonly #maxAttempts: number;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #maxRetryAfterMs: number;
  readonly #random: () => number;
  readonly #pacer: RequestPacer;

  constructor(options: HubSpotHttpOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#token = options.token;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#maxAttempts = Math.max(1, options.maxAttempts ?? 6);
    this.#baseDelayMs = options.baseDelayMs ?? 500;
    this.#maxDelayMs = options.maxDelayMs ?? 30_000;
    this.#maxRetryAfterMs = options.maxRetryAfterMs ?? 120_000;
    this.#random = options.random ?? Math.random;
    this.#pacer = new RequestPacer(options.searchIntervalMs ?? 250);
  }

  /** The requests HubSpot said are left, as of its last answer that said so. */
  get budget(): CrmApiBudget {
    return this.#pacer.budget;
  }

  /**
   * Sends the request, retrying `429` (after its Retry-After, else backoff), `5xx`, timeouts and
   * network errors up to maxAttempts; resolves with the parsed JSON body of a `2xx`. Throws
   * HubSpotAuthError on `401`/`403` (at once), HubSpotRequestError on another `4xx`,
   * HubSpotUnavailableError when the attempts run out.
   */
  async send(request: HubSpotRequest): Promise<unknown> {
    const call = `${request.method} ${request.path}`;
    const url = new URL(this.#baseUrl + request.path);
    for (const [key, value] of Object.entries(request.query ?? {}))
      if (value !== undefined) url.searchParams.set(key, value);
    for (let attempt = 1; ; attempt++) {
      await this.#pacer.ready(request.kind ?? 'standard');
      const outcome = await this.#attempt(call, url, request);
      if (!outcome.retry) return outcome.value;
      if (attempt >= this.#maxAttempts)
        throw new HubSpotUnavailableError(call, attempt, outcome.failure);
      const wait =
        outcome.waitMs ?? backoffDelay(attempt, this.#baseDelayMs, this.#maxDelayMs, this.#random);
      this.#pacer.holdFor(wait);
    }
  }

  async #attempt(call: string, url: URL, request: HubSpotRequest): Promise<Outcome> {
    let status: number;
    let headers: Headers;
    let text: string;
    try {
      const response = await fetch(url, {
        method: request.method,
        headers: {
          authorization: `Bearer ${this.#token.reveal()}`,
          accept: 'application/json',
          ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        // Covers the body too: a stalled answer counts as a timeout like a silent server.
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      status = response.status;
      headers = response.headers;
      text = await response.text();
    } catch (error) {
      return { retry: true, failure: networkFailure(error, this.#timeoutMs), waitMs: null };
    }
    this.#pacer.observe(headers);
    const parsed = parseJson(text);
    const detail = describeErrorBody(errorBodyOf(parsed), this.#token.reveal());
    if (status >= 200 && status < 300) {
      // A cut-off body from a proxy is transient; anything else HubSpot sends here is JSON.
      if (parsed === undefined)
        return { retry: true, failure: `${status} with a body that is not JSON`, waitMs: null };
      return { retry: false, value: parsed };
    }
    if (status === 401 || status === 403) throw new HubSpotAuthError(status, call, detail);
    if (status === 429) {
      // The daily limit resets at midnight in the portal's time zone: waiting for it is no retry.
      if (errorBodyOf(parsed)?.policyName === 'DAILY')
        throw new HubSpotUnavailableError(call, 1, `429 daily limit reached: ${detail}`);
      const waitMs = retryAfterDelay(headers.get('retry-after'), Date.now());
      if (waitMs !== null && waitMs > this.#maxRetryAfterMs) {
        throw new HubSpotUnavailableError(
          call,
          1,
          `429 asking to retry after ${Math.round(waitMs / 1000)} s, more than the ${this.#maxRetryAfterMs / 1000} s allowed`,
        );
      }
      return { retry: true, failure: `429${detail ? ` ${detail}` : ''}`, waitMs };
    }
    if (RETRIED_STATUSES.has(status))
      return { retry: true, failure: `${status}${detail ? ` ${detail}` : ''}`, waitMs: null };
    throw new HubSpotRequestError(status, call, detail || 'no error message');
  }
}
