import { RespClient } from './resp-client';
import type { RateLimitStore, WindowCount } from './rate-limit-store';

// One round trip, atomic: count, start the window on the first request, answer the time left.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

/**
 * Counters in Redis (RATE_LIMIT_REDIS_URL), so several gateway instances share one limit.
 * Keys are `<prefix><key>` and expire with their window.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly client: RespClient;

  constructor(
    url: string,
    private readonly prefix = 'pipeline-gateway:rl:',
  ) {
    this.client = new RespClient(url);
  }

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const reply = await this.client.command(
      'EVAL',
      HIT_SCRIPT,
      '1',
      this.prefix + key,
      String(windowMs),
    );
    if (!Array.isArray(reply) || typeof reply[0] !== 'number' || typeof reply[1] !== 'number') {
      throw new Error(`Unexpected Redis reply to the rate-limit script: ${JSON.stringify(reply)}`);
    }
    return { count: reply[0], resetInMs: reply[1] };
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
