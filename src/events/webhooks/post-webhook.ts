import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveWebhookUrl, UrlRefusedError, type CheckedAddress } from './ssrf-guard';

/** The most of an endpoint's answer read; the rest is not waited for. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/** What one delivery attempt got. */
export interface PostOutcome {
  /** The HTTP status; null without an answer. */
  status: number | null;
  /** Why it failed; null for a 2xx. */
  error: string | null;
  durationMs: number;
}

export interface PostOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
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

/**
 * POSTs one delivery: the host resolved and checked first (ssrf-guard.ts), the connection made to
 * the checked address; no redirect followed (a 3xx is an answer that is not 2xx); the whole
 * attempt bounded by `timeoutMs`, the answer read up to MAX_RESPONSE_BYTES. Never throws: what
 * went wrong is in the outcome.
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
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    const finish = (status: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome(status, error));
    };
    const request = client.request(
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
        agent: false,
      },
      (response) => {
        const status = response.statusCode ?? null;
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) {
            response.destroy();
            finish(
              status,
              status !== null && status >= 200 && status < 300 ? null : `answered ${status}`,
            );
          }
        });
        response.on('end', () =>
          finish(
            status,
            status !== null && status >= 200 && status < 300 ? null : `answered ${status}`,
          ),
        );
        response.on('error', () => finish(status, `answered ${status}, then the connection broke`));
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      finish(null, `no answer within ${options.timeoutMs} ms`);
    }, options.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) =>
      finish(null, `request failed: ${error.code ?? error.message}`),
    );
    request.end(options.body);
  });
}
