import { Role } from '../../src/auth/role';
import { KeptAnswerLane } from '../../src/rest/kept-answer-lane';
import { insertMember } from '../auth/members.fixture';
import { startGateway, type GatewayResponse, type TestGateway } from '../helpers/gateway';
import { MAIN_FIXTURE, toImportBody } from '../pipelines/fixtures/crm-fixture';

/**
 * The kept-answer lane (src/rest/kept-answer-lane.ts) sends kept REST answers before fastify runs.
 * It must answer exactly what the full way answers, and leave everything else to it. Whether it
 * answered a request is read from its own results: `serve` took the request, and `sendKept` sent
 * its answer (with MONGODB_URI a request taken may still be handed to fastify after the version
 * read). It answers repeated reads in both database modes.
 */
const serve = jest.spyOn(KeptAnswerLane.prototype, 'serve');
const sendKept = jest.spyOn(KeptAnswerLane.prototype, 'sendKept');

/** For each of the last `count` requests the gateway received, whether the lane sent its answer. */
function laneAnswers(count: number): boolean[] {
  const { calls, results } = serve.mock;
  return calls.slice(-count).map(([request], i) => {
    if (results[calls.length - count + i]?.value !== true) return false;
    return sendKept.mock.calls.some(
      (call, j) => call[1] === request && sendKept.mock.results[j]?.value === true,
    );
  });
}

/** Whether the lane sent the answer of the last request the gateway received. */
function laneAnswered(): boolean {
  return laneAnswers(1)[0] === true;
}

/** The headers that are the same for two answers to the same request. */
function stableHeaders(res: GatewayResponse): Record<string, string> {
  const { date: _date, 'x-request-id': _id, ratelimit: _limit, ...rest } = res.headers;
  return rest;
}

async function importFixture(gw: TestGateway, at: string): Promise<void> {
  const res = await gw.request('POST', '/crm/imports', { body: toImportBody(MAIN_FIXTURE, at) });
  expect(res.status).toBe(200);
}

describe('kept-answer lane', () => {
  let gw: TestGateway;
  let token: string;
  beforeAll(async () => {
    gw = await startGateway();
    await importFixture(gw, '2026-05-20T12:00:00Z');
    token = await gw.tokenFor(await insertMember(Role.ADMIN));
  });
  afterAll(async () => gw?.stop());

  it('answers a repeated GET with what the full way answered', async () => {
    const first = await gw.request('GET', '/pipelines', { token });
    expect(laneAnswered()).toBe(false);
    expect(first.status).toBe(200);
    for (const path of [
      '/pipelines',
      '/pipelines',
      '/pipelines/metrics?pipeline_id=sales',
      '/pipelines/metrics?pipeline_id=sales',
    ]) {
      const again = await gw.request('GET', path, { token });
      const full = path === '/pipelines' ? first : again;
      expect(again.status).toBe(200);
      expect(again.body).toEqual(full.body);
      expect(stableHeaders(again)).toEqual(stableHeaders(full));
      expect(again.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(laneAnswered()).toBe(true);
  });

  it('echoes a sane x-request-id and replaces one that is not', async () => {
    await gw.request('GET', '/pipelines', { token });
    const sane = await gw.request('GET', '/pipelines', {
      token,
      headers: { 'x-request-id': 'client-id-42' },
    });
    expect(laneAnswered()).toBe(true);
    expect(sane.headers['x-request-id']).toBe('client-id-42');
    const forged = await gw.request('GET', '/pipelines', {
      token,
      headers: { 'x-request-id': 'two words' },
    });
    expect(laneAnswered()).toBe(true);
    expect(forged.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('leaves to the full way a request it cannot answer exactly', async () => {
    await gw.request('GET', '/pipelines', { token });
    const cases: Array<[string, () => Promise<GatewayResponse>, number]> = [
      ['no token', () => gw.request('GET', '/pipelines', { token: null }), 401],
      ['a bad token', () => gw.request('GET', '/pipelines', { token: 'not.a.token' }), 401],
      // The bootstrap secret is checked in constant time on every request, never remembered.
      ['the admin secret', () => gw.request('GET', '/pipelines'), 200],
      ['a body', () => gw.request('GET', '/pipelines', { token, body: {} }), 200],
      ['HEAD', () => gw.request('HEAD', '/pipelines', { token }), 200],
      ['another method', () => gw.request('DELETE', '/pipelines', { token }), 405],
      ['an unknown path', () => gw.request('GET', '/pipelines/nope', { token }), 404],
    ];
    for (const [name, send, status] of cases) {
      const res = await send();
      expect([name, res.status]).toEqual([name, status]);
      expect([name, laneAnswered()]).toEqual([name, false]);
    }
  });

  it('computes again from memory, as the full way does, a URL answered before once a write changed it', async () => {
    const path = '/pipelines/metrics?pipeline_id=sales&metrics=pipeline_value';
    const unit = (res: GatewayResponse) => res.body.metrics[0].metric_value.unit;
    expect(
      (await gw.request('POST', '/settings/currencies', { body: { currency: 'eur' } })).status,
    ).toBe(200);
    const first = await gw.request('GET', path, { token });
    expect(laneAnswered()).toBe(false);
    expect(unit(first)).toBe('EUR');
    expect(
      (await gw.request('POST', '/settings/currencies', { body: { currency: 'usd' } })).status,
    ).toBe(200);
    // The first read after the write reads the settings (the full way) into the app's caches.
    expect(
      (await gw.request('GET', '/pipelines/metrics?pipeline_id=sales', { token })).status,
    ).toBe(200);
    const computed = await gw.request('GET', path, { token });
    expect(laneAnswered()).toBe(true);
    expect(unit(computed)).toBe('USD');
    // The same answer the full way gives (the admin secret is never answered by the lane).
    const full = await gw.request('GET', path);
    expect(laneAnswered()).toBe(false);
    expect(computed.body).toEqual(full.body);
    expect(stableHeaders(computed)).toEqual(stableHeaders(full));
    // And kept: the next one is the same.
    expect((await gw.request('GET', path, { token })).body).toEqual(computed.body);
    expect(laneAnswered()).toBe(true);
  });

  it('stops answering what a write changed, and keeps answering what it did not', async () => {
    const before = await gw.request('GET', '/pipelines', { token });
    const settings = await gw.request('POST', '/settings/currencies', {
      body: { currency: 'usd' },
    });
    expect(settings.status).toBe(200);
    // GET /pipelines reads no settings.
    expect((await gw.request('GET', '/pipelines', { token })).body).toEqual(before.body);
    expect(laneAnswered()).toBe(true);
    await importFixture(gw, '2026-05-21T12:00:00Z');
    const after = await gw.request('GET', '/pipelines', { token });
    expect(laneAnswered()).toBe(false);
    expect(after.body.snapshot_id).not.toBe(before.body.snapshot_id);
    expect((await gw.request('GET', '/pipelines', { token })).body).toEqual(after.body);
    expect(laneAnswered()).toBe(true);
  });
});

describe('kept-answer lane under a rate limit, with request logs', () => {
  let gw: TestGateway;
  let token: string;
  let memberId: string;
  const lines: Array<Record<string, unknown>> = [];
  const answers: GatewayResponse[] = [];
  beforeAll(async () => {
    gw = await startGateway({
      env: { RATE_LIMIT: '4', LOG_LEVEL: 'info' },
      logStream: { write: (line: string) => lines.push(JSON.parse(line)) },
    });
    await importFixture(gw, '2026-05-20T12:00:00Z');
    memberId = await insertMember(Role.ADMIN);
    token = await gw.tokenFor(memberId);
  });
  afterAll(async () => gw?.stop());

  it('counts its answers in the same window as the full way and leaves the 429 to it', async () => {
    for (let i = 0; i < 5; i += 1) answers.push(await gw.request('GET', '/pipelines', { token }));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 429]);
    expect(answers.map((res) => res.headers.ratelimit?.split(';t=')[0])).toEqual([
      '"default";r=3',
      '"default";r=2',
      '"default";r=1',
      '"default";r=0',
      '"default";r=0',
    ]);
    for (const res of answers) expect(res.headers['ratelimit-policy']).toBe('"default";q=4;w=60');
    expect(answers[4].headers['retry-after']).toMatch(/^\d+$/);
    expect(answers[4].body).toMatchObject({ success: false, statusCode: 429 });
    expect(laneAnswered()).toBe(false);
    // The first was computed, the next three kept.
    expect(laneAnswers(5)).toEqual([false, true, true, true, false]);
  });

  it('writes the same request line as the full way', async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The first answer was computed the full way; the lane sent the next three where it runs.
    const logged = answers
      .slice(0, 4)
      .map((res) => lines.find((line) => line.requestId === res.headers['x-request-id']));
    for (const line of logged) {
      expect(Object.keys(line ?? {})).toEqual(Object.keys(logged[0] ?? {}));
      expect(line).toMatchObject({
        msg: 'request completed',
        method: 'GET',
        route: '/pipelines',
        status: 200,
        subject: memberId,
        durationMs: expect.any(Number),
      });
    }
  });
});
