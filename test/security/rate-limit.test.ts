import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { Role } from '../../src/auth/role';
import { MemoryRateLimitStore } from '../../src/security/rate-limit/memory-store';
import type { RateLimitStore } from '../../src/security/rate-limit/rate-limit-store';
import { RedisRateLimitStore } from '../../src/security/rate-limit/redis-store';
import { insertMember } from '../auth/members.fixture';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { countCommands } from './write-counter';

const REDIS_SERVER = '/usr/bin/redis-server';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function startRedis(): Promise<{ url: string; process: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    REDIS_SERVER,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up) return { url: `redis://127.0.0.1:${port}`, process: child };
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill();
  throw new Error(`redis-server did not listen on port ${port}`);
}

function storeContract(
  name: string,
  make: () => Promise<{ store: RateLimitStore; done: () => Promise<void> }>,
): void {
  describe(name, () => {
    let store: RateLimitStore;
    let done: () => Promise<void>;
    beforeAll(async () => {
      ({ store, done } = await make());
    });
    afterAll(async () => {
      await done();
    });

    it('counts per key within a window and reports the time left', async () => {
      const a = `a-${Math.random()}`;
      const first = await store.hit(a, 60_000);
      expect(first.count).toBe(1);
      expect(first.resetInMs).toBeGreaterThan(55_000);
      expect(first.resetInMs).toBeLessThanOrEqual(60_000);
      expect((await store.hit(a, 60_000)).count).toBe(2);
      expect((await store.hit(`b-${Math.random()}`, 60_000)).count).toBe(1);
    });

    it('starts over once the window has passed', async () => {
      const key = `w-${Math.random()}`;
      await store.hit(key, 150);
      await store.hit(key, 150);
      await new Promise((r) => setTimeout(r, 300));
      expect((await store.hit(key, 150)).count).toBe(1);
    });

    it('counts concurrent hits exactly', async () => {
      const key = `c-${Math.random()}`;
      const counts = await Promise.all(Array.from({ length: 50 }, () => store.hit(key, 60_000)));
      expect(counts.map((c) => c.count).sort((x, y) => x - y)).toEqual(
        Array.from({ length: 50 }, (_, i) => i + 1),
      );
    });
  });
}

storeContract('MemoryRateLimitStore', async () => {
  const store = new MemoryRateLimitStore();
  return { store, done: () => store.close() };
});

const describeRedis = existsSync(REDIS_SERVER)
  ? storeContract
  : (name: string) => describe.skip(name, () => undefined);
describeRedis('RedisRateLimitStore (a real redis-server)', async () => {
  const redis = await startRedis();
  const store = new RedisRateLimitStore(redis.url);
  return {
    store,
    done: async () => {
      await store.close();
      redis.process.kill();
    },
  };
});

describe('RedisRateLimitStore when Redis is unreachable', () => {
  it('fails the hit (the hook then lets the request through)', async () => {
    const store = new RedisRateLimitStore(`redis://127.0.0.1:${await freePort()}`);
    await expect(store.hit('k', 1000)).rejects.toThrow(/ECONNREFUSED|closed/);
    await store.close();
  });
});

describe('rate limiting by default', () => {
  it('is on with no configuration (600 a minute per caller), and RATE_LIMIT=0 turns it off', async () => {
    const defaults = await startGateway();
    try {
      const res = await defaults.request('GET', '/teams');
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-policy']).toBe('"default";q=600;w=60');
      expect(res.headers.ratelimit).toMatch(/^"default";r=599;t=\d+$/);
    } finally {
      await defaults.stop();
    }
    const off = await startGateway({ env: { RATE_LIMIT: '0' } });
    try {
      const res = await off.request('GET', '/teams');
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-policy']).toBeUndefined();
    } finally {
      await off.stop();
    }
  });
});

describe('RATE_LIMIT over HTTP', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ env: { RATE_LIMIT: '3', RATE_LIMIT_WINDOW: '2' } });
  });
  afterAll(async () => {
    await gw.stop();
  });

  it('limits per token subject with 429, Retry-After and RateLimit fields, keeps probes open, and recovers after the window', async () => {
    const memberToken = await gw.tokenFor(await insertMember(Role.MEMBER));
    const first = await gw.request('GET', '/teams');
    expect(first.headers['ratelimit-policy']).toBe('"default";q=3;w=2');
    expect(first.headers.ratelimit).toMatch(/^"default";r=2;t=[12]$/);
    await gw.request('GET', '/teams');
    await gw.request('GET', '/teams');
    const { result: limited, all } = await countCommands(gw, () =>
      gw.request('POST', '/teams', { body: { team_id: 'rl', name: 'RL' } }),
    );
    expect(limited.status).toBe(429);
    expect(all).toBe(0);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.headers.ratelimit).toMatch(/^"default";r=0;t=\d+$/);
    expect(limited.body).toMatchObject({
      success: false,
      statusCode: 429,
      message: expect.stringMatching(/^Rate limit reached; retry in \d+ s$/),
    });
    // GraphQL answers the same limit as a GraphQL error.
    const gql = await gw.graphql('{ viewer { role } }');
    expect(gql.status).toBe(429);
    expect(gql.body.errors[0].extensions.code).toBe('TOO_MANY_REQUESTS');
    // Another subject has its own budget; probes are never limited.
    expect((await gw.request('GET', '/teams', { token: memberToken })).status).toBe(200);
    expect((await gw.request('GET', '/healthz')).status).toBe(200);
    expect((await gw.request('GET', '/healthz')).headers.ratelimit).toBeUndefined();
    // Recovered after the window; the team was never created.
    await new Promise((r) => setTimeout(r, Number(limited.headers['retry-after']) * 1000 + 100));
    expect((await gw.request('GET', '/teams/rl')).status).toBe(404);
  });

  it('limits callers without a valid token by address, bad tokens included', async () => {
    await new Promise((r) => setTimeout(r, 2100));
    const statuses: number[] = [];
    for (const token of [null, 'garbage', 'x.y.z', null])
      statuses.push((await gw.request('GET', '/teams', { token })).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
  });
});

(existsSync(REDIS_SERVER) ? describe : describe.skip)('RATE_LIMIT_REDIS_URL over HTTP', () => {
  it('keeps the counters in Redis, and lets requests through (logged) when Redis is unreachable', async () => {
    const redis = await startRedis();
    const gw = await startGateway({ env: { RATE_LIMIT: '2', RATE_LIMIT_REDIS_URL: redis.url } });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await gw.request('GET', '/teams')).status);
      expect(statuses).toEqual([200, 200, 429]);
      const { RespClient } = await import('../../src/security/rate-limit/resp-client');
      const client = new RespClient(redis.url);
      expect(await client.command('GET', 'pipeline-gateway:rl:sub:admin-token')).toBe('3');
      await client.close();
    } finally {
      await gw.stop();
      redis.process.kill();
    }
    const lines: string[] = [];
    const unreachable = await startGateway({
      env: {
        RATE_LIMIT: '1',
        RATE_LIMIT_REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
        LOG_LEVEL: 'warn',
      },
      logStream: { write: (line: string) => lines.push(line) },
    });
    try {
      expect([
        (await unreachable.request('GET', '/teams')).status,
        (await unreachable.request('GET', '/teams')).status,
      ]).toEqual([200, 200]);
      expect(lines.join('')).toContain('rate-limit store unavailable');
    } finally {
      await unreachable.stop();
    }
  });
});
