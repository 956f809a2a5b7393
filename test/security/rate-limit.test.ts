import { Role } from '../../src/auth/role';
import { MemoryRateLimitStore } from '../../src/security/rate-limit/memory-store';
import { insertMember } from '../auth/members.fixture';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { storeContract } from './rate-limit-store.contract';
import { countCommands } from './write-counter';

// Redis as the store: rate-limit-redis.test.ts.

storeContract('MemoryRateLimitStore', async () => {
  const store = new MemoryRateLimitStore();
  return { store, done: () => store.close() };
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
