import { Redis, ReplyError, type Result } from 'ioredis';
import { ConfigError, type Secret } from '../../config';
import type { RateLimitStore, WindowCount } from './rate-limit-store';

// One round trip, atomic: count, start the window on the first request, answer the time left.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** HIT_SCRIPT, sent by its SHA1 (EVALSHA), and in full only when Redis does not know it yet. */
    rateLimitHit(key: string, windowMs: number): Result<unknown, Context>;
  }
}

/** How long connecting (TCP, TLS, AUTH, SELECT) may take before the attempt counts as failed. */
const CONNECT_TIMEOUT_MS = 1000;
/** How long one hit may wait for its answer; a connection silent that long is dropped. */
const COMMAND_TIMEOUT_MS = 500;

/**
 * Counters in Redis (RATE_LIMIT_REDIS_URL: credentials, db number and TLS come from the URL), so
 * several gateway instances share one limit. Keys are `<prefix><key>` and expire with their window.
 *
 * A hit never waits for a connection: while Redis is unreachable it fails at once (no offline
 * queue, no retry), and the limiter lets the request through; the client reconnects in the
 * background, at most a second apart, and counting resumes with the first hit after that.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly client: Redis;
  /** Why the last connection attempt failed; undefined once connected. */
  private connectionError: Error | undefined;

  constructor(url: Secret, prefix = 'pipeline-gateway:rl:') {
    this.client = new Redis(url.reveal(), {
      keyPrefix: prefix,
      lazyConnect: true,
      connectTimeout: CONNECT_TIMEOUT_MS,
      commandTimeout: COMMAND_TIMEOUT_MS,
      socketTimeout: COMMAND_TIMEOUT_MS,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // A hit whose answer was lost was let through: sending it again would count it after the fact.
      autoResendUnfulfilledCommands: false,
      retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    });
    this.client.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    // The client reports a failed connection attempt as an error event, one per attempt: kept as
    // the reason a hit fails while the connection is down, which the limiter reports.
    this.client.on('error', (error: Error) => {
      this.connectionError = error;
    });
    this.client.on('ready', () => {
      this.connectionError = undefined;
    });
  }

  /**
   * Connects. Rejects with a ConfigError when Redis refuses the connection's set-up (wrong
   * password or user, a db number it does not have): that never mends by waiting. Rejects with the
   * network error when Redis cannot be reached; the client keeps trying.
   */
  async open(): Promise<void> {
    let refused: Error | undefined;
    let unreachable: Error | undefined;
    const note = (error: Error): void => {
      if (error instanceof ReplyError) refused ??= error;
      else unreachable ??= error;
    };
    this.client.on('error', note);
    try {
      await this.client.connect();
    } catch (error) {
      unreachable ??= error as Error;
    } finally {
      this.client.off('error', note);
    }
    if (refused !== undefined) {
      this.client.disconnect();
      // Redis's own words (WRONGPASS ..., NOAUTH ..., ERR DB index is out of range): no credential in them.
      throw new ConfigError(
        `RATE_LIMIT_REDIS_URL: Redis refused the connection: ${refused.message}`,
      );
    }
    if (this.client.status !== 'ready' && unreachable !== undefined) throw unreachable;
  }

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    // The client would refuse it the same way; this says why.
    if (this.client.status !== 'ready')
      throw new Error(
        `Redis not connected: ${this.connectionError?.message ?? `connection ${this.client.status}`}`,
      );
    const reply = await this.client.rateLimitHit(key, windowMs);
    if (!Array.isArray(reply) || typeof reply[0] !== 'number' || typeof reply[1] !== 'number') {
      throw new Error(`Unexpected Redis reply to the rate-limit script: ${JSON.stringify(reply)}`);
    }
    return { count: reply[0], resetInMs: reply[1] };
  }

  /** Quits (Redis answers what it was sent first); a connection that is down is just dropped. */
  async close(): Promise<void> {
    if (this.client.status === 'ready') {
      try {
        await this.client.quit();
        return;
      } catch {
        // Lost while quitting: nothing is left to wait for.
      }
    }
    this.client.disconnect();
  }
}
