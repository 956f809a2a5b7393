import { FixedWindowLimiter } from '../../src/server/rate-limiter';
import { startGateway, type TestGateway } from '../helpers/gateway';

describe('FixedWindowLimiter', () => {
  it('allows the limit per key and window, then says how long to wait', () => {
    const limiter = new FixedWindowLimiter(2, 60_000);
    const t = 1_000_040_000; // 20 s into a window (1_000_020_000 is a window start)
    expect([limiter.hit('a', t), limiter.hit('a', t), limiter.hit('b', t)]).toEqual([0, 0, 0]);
    expect(limiter.hit('a', t)).toBe(40);
    expect(limiter.hit('a', t + 40_000)).toBe(0);
  });
});

describe('RATE_LIMIT', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ env: { RATE_LIMIT: '3' } });
  });
  afterAll(async () => {
    await gw.stop();
  });

  it('answers 429 with Retry-After over the limit, and keeps probes answerable', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await gw.request('GET', '/teams')).status);
    expect(statuses.slice(0, 3).every((s) => s !== 429)).toBe(true);
    const limited = await gw.request('GET', '/teams');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.body).toMatchObject({ success: false, statusCode: 429, message: expect.stringMatching(/^Rate limit reached; retry in \d+ s$/) });
    expect((await gw.request('GET', '/healthz')).status).toBe(200);
  });
});
