import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { ConfigError, loadConfig, Secret } from '../../src/config';
import { RedisRateLimitStore } from '../../src/security/rate-limit/redis-store';
import { buildApp } from '../../src/server/build-app';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { storeContract } from './rate-limit-store.contract';
import { describeWithRedis, freePort, startRedis, type RedisServer } from './redis-server';

const PASSWORD = 'secret';
/** The admin token's counter, as the gateway names it. */
const ADMIN_KEY = 'pipeline-gateway:rl:sub:admin-token';

interface LogSink {
  stream: { write(line: string): void };
  /** The log lines whose message contains `text`. */
  lines(text: string): any[];
}

function logSink(): LogSink {
  const lines: any[] = [];
  return {
    stream: { write: (line) => lines.push(JSON.parse(line)) },
    lines: (text) => lines.filter((line) => String(line.msg).includes(text)),
  };
}

/**
 * Another instance of the gateway beside `a`, on its database and with its secrets, as a second
 * process of the same deployment would be (startGateway runs one gateway per test file).
 */
async function startInstance(
  a: TestGateway,
  env: Record<string, string>,
  logStream?: LogSink['stream'],
): Promise<FastifyInstance> {
  const config = { ...loadConfig({ LOG_LEVEL: 'silent', ...env }), port: 0, host: '127.0.0.1' };
  return buildApp({
    connection: a.connection,
    config,
    secrets: { jwtSecret: a.jwtSecret, adminToken: a.adminToken, generatedAdminToken: null },
    logStream,
  });
}

function urlOf(app: FastifyInstance): string {
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

async function get(
  base: string,
  path: string,
  token: string,
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

describe('RATE_LIMIT_REDIS_URL configuration', () => {
  it('takes credentials, a db number and rediss:// for TLS, and keeps the URL a Secret', () => {
    for (const url of [
      'redis://:hunter2@cache:6380/2',
      'redis://gateway:hunter2@cache/0',
      'rediss://:hunter2@cache.example.com:6380',
      'redis://127.0.0.1',
    ]) {
      const config = loadConfig({ RATE_LIMIT_REDIS_URL: url });
      expect(config.rateLimitRedisUrl).toBeInstanceOf(Secret);
      expect(config.rateLimitRedisUrl?.reveal()).toBe(url);
      expect(JSON.stringify(config)).not.toContain('hunter2');
    }
  });

  it.each([
    ['no scheme', 'hunter2@cache:6379', /the value set is not a URL$/],
    ['another scheme', 'http://:hunter2@cache:6379', /the value set has another scheme$/],
    ['a password where the scheme goes', 'hunter2://cache', /the value set has another scheme$/],
    ['no host', 'redis:hunter2@cache', /names no host$/],
    ['a db that is not a number', 'redis://:hunter2@cache/two', /must be a db number/],
    ['an unencoded / in the password', 'redis://user:12/hunter2@cache', /must be a db number/],
    ['a query', 'redis://cache:6379?password=hunter2', /has a query or fragment/],
  ])('refuses %s, naming the variable and never showing the value', (_name, url, reason) => {
    let error: unknown;
    try {
      loadConfig({ RATE_LIMIT_REDIS_URL: url });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { message } = error as Error;
    expect(message).toMatch(
      /^RATE_LIMIT_REDIS_URL must look like redis:\/\/\[\[user\]:password@\]host\[:port\]\[\/db\] \(rediss:\/\/ for TLS\); /,
    );
    expect(message).toMatch(reason);
    expect(message).not.toContain('hunter2');
  });
});

storeContract(
  'RedisRateLimitStore (a real redis-server with a password, db 3)',
  async () => {
    const redis = await startRedis({ password: PASSWORD });
    const store = new RedisRateLimitStore(new Secret(redis.url(3)));
    await store.open();
    return {
      store,
      done: async () => {
        await store.close();
        await redis.stop();
      },
    };
  },
  describeWithRedis,
);

describeWithRedis('RedisRateLimitStore on a real redis-server', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis({ password: PASSWORD });
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('close() quits its connection', async () => {
    const admin = new Redis(redis.url(0));
    try {
      const connections = async (): Promise<number> =>
        String(await admin.client('LIST'))
          .trim()
          .split('\n').length;
      const store = new RedisRateLimitStore(new Secret(redis.url(2)));
      await store.open();
      expect(await connections()).toBe(2);
      await store.close();
      for (let i = 0; i < 50 && (await connections()) > 1; i += 1)
        await new Promise((r) => setTimeout(r, 20));
      expect(await connections()).toBe(1);
    } finally {
      admin.disconnect();
    }
  });

  it('refuses to open with a ConfigError when Redis refuses the password or the db number', async () => {
    const cases: Array<[string, RegExp]> = [
      [
        redis.url(2, 'not-the-password'),
        /^RATE_LIMIT_REDIS_URL: Redis refused the connection: WRONGPASS/,
      ],
      [
        `redis://127.0.0.1:${redis.port}/2`,
        /^RATE_LIMIT_REDIS_URL: Redis refused the connection: NOAUTH/,
      ],
      [
        redis.url(99),
        /^RATE_LIMIT_REDIS_URL: Redis refused the connection: ERR DB index is out of range/,
      ],
    ];
    for (const [url, message] of cases) {
      const store = new RedisRateLimitStore(new Secret(url));
      const opened = store.open();
      await expect(opened).rejects.toThrow(ConfigError);
      await expect(opened).rejects.toThrow(message);
      await opened.catch((error: Error) => expect(error.message).not.toContain('not-the-password'));
      await store.close();
    }
  });
});

describe('RedisRateLimitStore when Redis is unreachable', () => {
  it('fails to open and fails each hit at once, saying why (the hook then lets the request through)', async () => {
    const store = new RedisRateLimitStore(new Secret(`redis://127.0.0.1:${await freePort()}`));
    await expect(store.open()).rejects.toThrow(/ECONNREFUSED/);
    await expect(store.hit('k', 1000)).rejects.toThrow(/^Redis not connected: .*ECONNREFUSED/);
    await store.close();
  });
});

describeWithRedis(
  'RATE_LIMIT_REDIS_URL over HTTP: two instances, one Redis with requirepass',
  () => {
    let redis: RedisServer;
    let a: TestGateway;
    let b: FastifyInstance;
    const logsA = logSink();
    const logsB = logSink();
    let env: Record<string, string>;
    beforeAll(async () => {
      redis = await startRedis({ password: PASSWORD });
      env = {
        RATE_LIMIT: '4',
        RATE_LIMIT_WINDOW: '60',
        RATE_LIMIT_REDIS_URL: redis.url(2),
        LOG_LEVEL: 'info',
      };
      a = await startGateway({ env, logStream: logsA.stream });
      b = await startInstance(a, env, logsB.stream);
      await b.listen({ port: 0, host: '127.0.0.1' });
    });
    afterAll(async () => {
      await b?.close();
      await a?.stop();
      await redis?.stop();
    });

    it('enforces one limit across both instances, with 429, Retry-After and the RateLimit fields, its counters in db 2', async () => {
      const answers = [];
      for (let i = 0; i < 6; i += 1)
        answers.push(await get(i % 2 === 0 ? a.url : urlOf(b), '/teams', a.adminToken));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 429, 429]);
      expect(answers.map((r) => r.headers.get('ratelimit-policy'))).toEqual(
        Array(6).fill('"default";q=4;w=60'),
      );
      expect(answers.map((r) => r.headers.get('ratelimit')?.replace(/;t=\d+$/, ''))).toEqual(
        ['3', '2', '1', '0', '0', '0'].map((r) => `"default";r=${r}`),
      );
      for (const limited of answers.slice(4)) {
        const retryAfter = Number(limited.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
        expect(limited.headers.get('ratelimit')).toBe(`"default";r=0;t=${retryAfter}`);
        expect(limited.body).toMatchObject({
          success: false,
          statusCode: 429,
          message: `Rate limit reached; retry in ${retryAfter} s`,
        });
      }

      const db2 = new Redis(redis.url(2));
      const db0 = new Redis(redis.url(0));
      try {
        expect(await db2.keys('*')).toEqual([ADMIN_KEY]);
        expect(await db2.get(ADMIN_KEY)).toBe('6');
        const ttl = await db2.pttl(ADMIN_KEY);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(60_000);
        expect(await db0.dbsize()).toBe(0);
      } finally {
        db2.disconnect();
        db0.disconnect();
      }
    });

    it('does not start when Redis refuses the password, and says so without showing it', async () => {
      const wrong = await startInstance(a, {
        ...env,
        RATE_LIMIT_REDIS_URL: redis.url(2, 'not-the-password'),
      });
      try {
        const started = wrong.listen({ port: 0, host: '127.0.0.1' });
        await expect(started).rejects.toThrow(ConfigError);
        await expect(started).rejects.toThrow(
          /^RATE_LIMIT_REDIS_URL: Redis refused the connection: WRONGPASS/,
        );
        await started.catch((error: Error) =>
          expect(error.message).not.toContain('not-the-password'),
        );
      } finally {
        await wrong.close();
      }
    });

    it('starts when Redis is unreachable, and lets requests through uncounted with one warning', async () => {
      const logs = logSink();
      const alone = await startInstance(
        a,
        {
          RATE_LIMIT: '1',
          RATE_LIMIT_REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${await freePort()}/2`,
          LOG_LEVEL: 'warn',
        },
        logs.stream,
      );
      try {
        await alone.listen({ port: 0, host: '127.0.0.1' });
        const answers = [];
        for (let i = 0; i < 3; i += 1)
          answers.push(await get(urlOf(alone), '/teams', a.adminToken));
        expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
        expect(answers.map((r) => r.headers.get('ratelimit'))).toEqual([null, null, null]);
        const warnings = logs.lines('rate-limit store unavailable');
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatchObject({ level: 40, err: { message: /ECONNREFUSED/ } });
        expect(JSON.stringify(warnings)).not.toContain(PASSWORD);
      } finally {
        await alone.close();
      }
    });

    it('lets requests through while Redis is down, warns once per instance, and counts again when it is back', async () => {
      await redis.stop();
      const during = [];
      for (let i = 0; i < 6; i += 1)
        during.push(await get(i % 2 === 0 ? a.url : urlOf(b), '/teams', a.adminToken));
      expect(during.map((r) => r.status)).toEqual(Array(6).fill(200));
      expect(during.map((r) => r.headers.get('ratelimit'))).toEqual(Array(6).fill(null));
      for (const logs of [logsA, logsB]) {
        const warnings = logs.lines('rate-limit store unavailable');
        expect(warnings).toHaveLength(1);
        // Failed at once, not after a time-out: the connection was known to be down.
        expect(warnings[0].err.message).toMatch(/^Redis not connected: /);
      }

      redis = await startRedis({ password: PASSWORD, port: redis.port });
      // The client reconnects within a second; until then requests still go through uncounted.
      let counted: Awaited<ReturnType<typeof get>> | undefined;
      for (let i = 0; i < 50 && counted === undefined; i += 1) {
        const res = await get(a.url, '/teams', a.adminToken);
        expect(res.status).toBe(200);
        if (res.headers.get('ratelimit') !== null) counted = res;
        else await new Promise((r) => setTimeout(r, 100));
      }
      expect(counted?.headers.get('ratelimit')).toMatch(/^"default";r=3;t=\d+$/);
      const back = logsA.lines('rate-limit store answers again');
      expect(back).toHaveLength(1);
      expect(back[0].uncounted).toBeGreaterThanOrEqual(3);
      expect(logsA.lines('rate-limit store unavailable')).toHaveLength(1);
    });
  },
);
