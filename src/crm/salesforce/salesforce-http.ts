// Internal to src/crm/salesforce: the access token, and one request with its timeout, retries and
// the org's daily allowance.
import type { Secret } from '../../config';
import { fetchSameOrigin, RedirectRefusedError } from '../http/fetch-same-origin';
import { networkFailure } from '../http/network-failure';
import { backoffDelay, retryAfterDelay } from '../http/retry-delay';
import {
  describeErrors,
  errorItemsOf,
  SalesforceAuthError,
  SalesforceLimitError,
  SalesforceRequestError,
  SalesforceUnavailableError,
} from './salesforce-errors';

/** How the client talks to Salesforce; every field but the credentials and URLs has a default. */
export interface SalesforceHttpOptions {
  /** SALESFORCE_LOGIN_URL: the origin of the token endpoint (`/services/oauth2/token`). */
  loginUrl: string;
  /** SALESFORCE_CLIENT_ID, the connected app's consumer key. */
  clientId: string;
  /** SALESFORCE_CLIENT_SECRET: sent to the token endpoint only, never logged nor put in an error. */
  clientSecret: Secret;
  /** SALESFORCE_API_VERSION, e.g. `v62.0`. */
  apiVersion: string;
  /** SALESFORCE_API_LIMIT_PERCENT: stop before the org's 24-hour API usage passes this share of its allowance; default 80. */
  apiLimitPercent?: number;
  /** Records per query page asked for (`Sforce-Query-Options: batchSize`, 200 to 2000); default 2000. */
  batchSize?: number;
  /** Time limit of one attempt, answer body included; default 30000 ms. */
  timeoutMs?: number;
  /** Attempts of one request, the first included; default 6. */
  maxAttempts?: number;
  /** Backoff before the second attempt, doubled for each further one (with jitter); default 500 ms. */
  baseDelayMs?: number;
  /** Longest backoff; default 30000 ms. */
  maxDelayMs?: number;
  /** The jitter source; default Math.random. */
  random?: () => number;
}

/** The org's API usage as the last answer reported it (`Sforce-Limit-Info: api-usage=<used>/<max>`). */
export interface ApiUsage {
  used: number;
  max: number;
}

type Outcome =
  | { kind: 'done'; value: unknown }
  | { kind: 'retry'; failure: string; waitMs: number | null }
  | { kind: 'token-refused' };

interface AccessToken {
  value: string;
  /** The instance the token is for (`instance_url`), as an origin. */
  instance: URL;
}

// Salesforce answers 503 when the server is busy; the others come from what stands in front of it.
const RETRIED_STATUSES = new Set([500, 502, 503, 504]);

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function usageOf(headers: Headers): ApiUsage | null {
  const match = /api-usage=(\d+)\/(\d+)/.exec(headers.get('sforce-limit-info') ?? '');
  return match ? { used: Number(match[1]), max: Number(match[2]) } : null;
}

/** Sends Salesforce requests for one client: holds its access token and the org's last usage. */
export class SalesforceHttp {
  readonly #options: Required<Omit<SalesforceHttpOptions, 'clientSecret'>> & {
    clientSecret: Secret;
  };

  #token: AccessToken | null = null;

  #usage: ApiUsage | null = null;

  constructor(options: SalesforceHttpOptions) {
    this.#options = {
      apiLimitPercent: 80,
      batchSize: 2000,
      timeoutMs: 30_000,
      maxAttempts: 6,
      baseDelayMs: 500,
      maxDelayMs: 30_000,
      random: Math.random,
      ...options,
      loginUrl: options.loginUrl.replace(/\/+$/, ''),
    };
    this.#options.maxAttempts = Math.max(1, this.#options.maxAttempts);
  }

  /** The org's API usage as last reported; null before the first answer that said it. */
  get usage(): ApiUsage | null {
    return this.#usage;
  }

  /** `/services/data/<version>`, the root of every resource path. */
  get dataPath(): string {
    return `/services/data/${this.#options.apiVersion}`;
  }

  /**
   * GETs a resource of the instance (`path` from `/services/data/...`, with its query), retrying
   * `REQUEST_LIMIT_EXCEEDED` (after its Retry-After, else backoff), `5xx`, timeouts and network
   * errors up to maxAttempts; resolves with the parsed JSON body of a `2xx`. An access token
   * refused (`401 INVALID_SESSION_ID`, as when it expired) is fetched again once and the request
   * sent again; refused again, SalesforceAuthError. Before each request the org's usage is
   * checked against SALESFORCE_API_LIMIT_PERCENT (SalesforceLimitError).
   */
  async get(path: string, call: string): Promise<unknown> {
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      this.#checkUsage(call);
      const token = await this.#accessToken();
      const outcome = await this.#attempt(call, new URL(path, token.instance), token);
      if (outcome.kind === 'done') return outcome.value;
      if (outcome.kind === 'token-refused') {
        this.#token = null;
        if (refreshed)
          throw new SalesforceAuthError(
            401,
            call,
            'INVALID_SESSION_ID: the access token was refused again right after it was fetched',
          );
        refreshed = true;
        attempt -= 1;
        continue;
      }
      if (attempt >= this.#options.maxAttempts)
        throw new SalesforceUnavailableError(call, attempt, outcome.failure);
      const wait =
        outcome.waitMs ??
        backoffDelay(
          attempt,
          this.#options.baseDelayMs,
          this.#options.maxDelayMs,
          this.#options.random,
        );
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /** The secrets an error text must never show: the client secret and the access token. */
  #secrets(): string[] {
    return [this.#options.clientSecret.reveal(), this.#token?.value ?? ''];
  }

  #checkUsage(call: string): void {
    const usage = this.#usage;
    if (usage === null || usage.max <= 0) return;
    const allowed = Math.floor((usage.max * this.#options.apiLimitPercent) / 100);
    if (usage.used + 1 <= allowed) return;
    throw new SalesforceLimitError(
      `Salesforce sync stopped before ${call}: the org has used ${usage.used} of its ${usage.max} API requests of the last 24 hours, ` +
        `and the sync may take it to ${this.#options.apiLimitPercent}% (${allowed}) at most (SALESFORCE_API_LIMIT_PERCENT)`,
    );
  }

  /** The access token, fetched with the client-credentials grant when there is none yet. */
  async #accessToken(): Promise<AccessToken> {
    if (this.#token !== null) return this.#token;
    const url = new URL('/services/oauth2/token', this.#options.loginUrl);
    const call = 'POST /services/oauth2/token';
    const body = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.#options.clientId,
      client_secret: this.#options.clientSecret.reveal(),
    }).toString();
    for (let attempt = 1; ; attempt++) {
      let status: number;
      let text: string;
      try {
        const response = await fetchSameOrigin(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            accept: 'application/json',
          },
          body,
          signal: AbortSignal.timeout(this.#options.timeoutMs),
        });
        status = response.status;
        text = await response.text();
      } catch (error) {
        if (error instanceof RedirectRefusedError)
          throw new SalesforceRequestError(error.status, call, error.detail);
        const failure = networkFailure(error, this.#options.timeoutMs);
        if (attempt >= this.#options.maxAttempts)
          throw new SalesforceUnavailableError(call, attempt, failure);
        await this.#backoff(attempt);
        continue;
      }
      const parsed = parseJson(text);
      const detail = describeErrors(errorItemsOf(parsed), this.#secrets());
      if (status >= 200 && status < 300) {
        const answer = parsed as { access_token?: unknown; instance_url?: unknown } | undefined;
        const instance =
          typeof answer?.instance_url === 'string' ? safeUrl(answer.instance_url) : null;
        if (typeof answer?.access_token !== 'string' || answer.access_token === '' || !instance)
          throw new SalesforceRequestError(
            status,
            call,
            'the token answer has no access_token and http(s) instance_url',
          );
        this.#token = { value: answer.access_token, instance };
        return this.#token;
      }
      if (RETRIED_STATUSES.has(status) && attempt < this.#options.maxAttempts) {
        await this.#backoff(attempt);
        continue;
      }
      if (RETRIED_STATUSES.has(status))
        throw new SalesforceUnavailableError(
          call,
          attempt,
          `${status}${detail ? ` ${detail}` : ''}`,
        );
      // 400 invalid_client, invalid_grant, unsupported_grant_type...: the credentials or the app's settings.
      throw new SalesforceAuthError(status, call, detail || 'no error message');
    }
  }

  async #backoff(attempt: number): Promise<void> {
    const wait = backoffDelay(
      attempt,
      this.#options.baseDelayMs,
      this.#options.maxDelayMs,
      this.#options.random,
    );
    await new Promise((resolve) => setTimeout(resolve, wait));
  }

  async #attempt(call: string, url: URL, token: AccessToken): Promise<Outcome> {
    let status: number;
    let headers: Headers;
    let text: string;
    try {
      const response = await fetchSameOrigin(url, {
        method: 'GET',
        headers: {
          authorization: `Bearer ${token.value}`,
          accept: 'application/json',
          'sforce-query-options': `batchSize=${this.#options.batchSize}`,
        },
        // Covers the body too: a stalled answer counts as a timeout like a silent server.
        signal: AbortSignal.timeout(this.#options.timeoutMs),
      });
      status = response.status;
      headers = response.headers;
      text = await response.text();
    } catch (error) {
      if (error instanceof RedirectRefusedError)
        throw new SalesforceRequestError(error.status, call, error.detail);
      return {
        kind: 'retry',
        failure: networkFailure(error, this.#options.timeoutMs),
        waitMs: null,
      };
    }
    this.#usage = usageOf(headers) ?? this.#usage;
    const parsed = parseJson(text);
    const items = errorItemsOf(parsed);
    const detail = describeErrors(items, this.#secrets());
    if (status >= 200 && status < 300) {
      // A cut-off body from a proxy is transient; anything else Salesforce sends here is JSON.
      if (parsed === undefined)
        return { kind: 'retry', failure: `${status} with a body that is not JSON`, waitMs: null };
      return { kind: 'done', value: parsed };
    }
    const codes = new Set(items.map((item) => item.code));
    if (status === 401) return { kind: 'token-refused' };
    if (codes.has('REQUEST_LIMIT_EXCEEDED') || status === 429) {
      // The org's daily allowance is spent: it frees up over 24 hours, not within a retry.
      if (items.some((item) => /TotalRequests/i.test(item.message)))
        throw new SalesforceLimitError(
          `Salesforce refused ${call}: the org's daily API allowance is spent (${detail}); the sync stops and keeps nothing`,
        );
      const waitMs = retryAfterDelay(headers.get('retry-after'), Date.now());
      return { kind: 'retry', failure: `${status}${detail ? ` ${detail}` : ''}`, waitMs };
    }
    if (RETRIED_STATUSES.has(status))
      return { kind: 'retry', failure: `${status}${detail ? ` ${detail}` : ''}`, waitMs: null };
    if (status === 403) throw new SalesforceAuthError(status, call, detail || 'no error message');
    throw new SalesforceRequestError(status, call, detail || 'no error message');
  }
}

function safeUrl(raw: string): URL | null {
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' || url.protocol === 'http:' ? new URL(url.origin) : null;
  } catch {
    return null;
  }
}
