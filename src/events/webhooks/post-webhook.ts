import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveWebhookUrl, UrlRefusedError, type CheckedAddress } from './ssrf-guard';

/** The most of an endpoint's answer read; the rest is not waited for. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * How long a kept-alive connection to an endpoint may stay idle: shorter than the usual servers'
 * keep-alive time-out (Node's 5 s), so the gateway drops an idle connection before the endpoint
 * does rather than send on one the endpoint is closing.
 */
const IDLE_CONNECTION_MS = 4_000;

/** What one delivery attempt got. */
export interface PostOutcome {
  /** The HTTP status; null without an answer. */
  status: number | null;
  /** Why it failed; null for a 2xx. */
  error: string | null;
  durationMs: number;
}

/**
 * The connections a sender keeps open to the endpoints it posts to, reused from one delivery to
 * the next (a backlog to one endpoint costs one connection, not one per delivery). Owned by the
 * delivery worker, closed with it.
 */
export class WebhookConnections {
  readonly http: http.Agent;

  readonly https: https.Agent;

  constructor(perEndpoint: number) {
    const options = {
      keepAlive: true,
      maxSockets: perEndpoint,
      timeout: IDLE_CONNECTION_MS,
      scheduling: 'lifo' as const,
    };
    this.http = new http.Agent(options);
    this.https = new https.Agent(options);
  }

  close(): void {
    this.http.destroy();
    this.https.destroy();
  }
}

export interface PostOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
  connections: WebhookConnections;
}

/** A lookup that answers the address already checked, whatever the name resolves to now. */
function pinnedLookup(address: CheckedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as (e: null, a: CheckedAddress[]) => void)(null, [address]);
    else
      (callback as (e: null, a: string, f: number) => void)(null, address.address, address.family);
  };
}

/** The outcome of an answer with `status`: a 2xx succeeded, anything else failed. */
function answered(status: number | null): string | null {
  return status !== null && status >= 200 && status < 300 ? null : `answered ${status}`;
}

/**
 * POSTs one delivery: the host resolved and checked first (ssrf-guard.ts), the connection made to
 * the checked address (or a kept-alive one made so before); no redirect followed (a 3xx is an
 * answer that is not 2xx); the whole attempt bounded by `timeoutMs`, the answer read up to
 * MAX_RESPONSE_BYTES. Never throws: what went wrong is in the outcome.
 */
export async function postWebhook(options: PostOptions): Promise<PostOutcome> {
  const started = Date.now();
  const outcome = (status: number | null, error: string | null): PostOutcome => ({
    status,
    error,
    durationMs: Date.now() - started,
  });
  let target: { url: URL; addresses: CheckedAddress[] };
  try {
    target = await resolveWebhookUrl(options.url, options.allowPrivate);
  } catch (error) {
    return outcome(null, error instanceof UrlRefusedError ? `url ${error.message}` : String(error));
  }
  const { url, addresses } = target;
  const secure = url.protocol === 'https:';
  const client = secure ? https : http;
  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    let request: http.ClientRequest;
    const finish = (status: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome(status, error));
    };
    const send = (): void => {
      request = client.request(
        url,
        {
          method: 'POST',
          headers: {
            ...options.headers,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(options.body)),
            'user-agent': 'pipeline-gateway-webhooks',
          },
          lookup: pinnedLookup(addresses[0]),
          agent: secure ? options.connections.https : options.connections.http,
        },
        (response) => {
          const status = response.statusCode ?? null;
          let read = 0;
          response.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_RESPONSE_BYTES) {
              response.destroy();
              finish(status, answered(status));
            }
          });
          response.on('end', () => finish(status, answered(status)));
          response.on('error', () =>
            finish(status, `answered ${status}, then the connection broke`),
          );
        },
      );
      request.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the endpoint closed just as this request went out: the request
        // never reached it, so it is sent once more on a new connection (Node's documented way).
        if (!settled && request.reusedSocket && error.code === 'ECONNRESET') send();
        else finish(null, `request failed: ${error.code ?? error.message}`);
      });
      request.end(options.body);
    };
    const timer = setTimeout(() => {
      request.destroy();
      finish(null, `no answer within ${options.timeoutMs} ms`);
    }, options.timeoutMs);
    send();
  });
}
