import { startGateway, type TestGateway } from '../helpers/gateway';
import { periodOf } from '../../src/domain/period';
import { dayIn, importBody, nameOf, OWNERS, type Deal } from './support/forecast-fixture';

// What moves with the forecast clock, over HTTP in both database modes: the missing calls at a
// cadence boundary, a period ending, and the accuracy of its calls. The clock is moved by
// importing snapshots dated later (`force`: they lie in the future), never by waiting.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The first Monday 00:00 UTC at least a day after `at`. */
function mondayAfter(at: Date): Date {
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()) + 2 * DAY;
  const back = (new Date(day).getUTCDay() + 6) % 7;
  return new Date(day + ((7 - back) % 7) * DAY);
}

const NOW = new Date();
const MONDAY = mondayAfter(NOW);
const BEFORE = new Date(MONDAY.getTime() - HOUR);
const AFTER = new Date(MONDAY.getTime() + HOUR);
const P = periodOf('monthly', AFTER);
const ENDED = new Date(P.endsBefore.getTime() + HOUR);

const OPEN: Deal[] = [
  {
    id: 'c1',
    pipeline: 'sales',
    stage: 's-nego',
    amount: 4000,
    owner: '202',
    closedate: dayIn(P, 20),
  },
  {
    id: 'c2',
    pipeline: 'sales',
    stage: 's-won',
    amount: 1000,
    owner: '202',
    closedate: dayIn(P, 1),
  },
  {
    id: 'c3',
    pipeline: 'sales',
    stage: 's-demo',
    amount: 3000,
    owner: '204',
    closedate: dayIn(P, 10),
  },
  {
    id: 'c4',
    pipeline: 'renewals',
    stage: 'r-won',
    amount: 500,
    owner: '201',
    closedate: dayIn(P, 2),
  },
];
/** After the period: c1 won, c3 lost. */
const CLOSED: Deal[] = OPEN.map((d) =>
  d.id === 'c1' ? { ...d, stage: 's-won' } : d.id === 'c3' ? { ...d, stage: 's-lost' } : d,
);

let gw: TestGateway;
const ids: Record<string, string> = {};
const tokens: Record<string, string> = {};

async function ok(
  method: string,
  path: string,
  options: Parameters<TestGateway['request']>[2] = {},
) {
  const answer = await gw.request(method, path, options);
  if (answer.status !== 200)
    throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

const importAt = async (deals: Deal[], at: Date) =>
  ok('POST', '/crm/imports', {
    body: importBody(deals, { snapshot_at: at.toISOString(), force: true }),
  });

const submit = (owner: string, call: number, scope?: string) =>
  ok('POST', '/forecasts/submissions', {
    body: { period: nameOf(P), call, ...(scope ? { scope } : {}) },
    token: tokens[owner],
  });

const missingAs = async (owner?: string) =>
  (
    await ok('GET', '/forecasts/missing', {
      query: { period: nameOf(P) },
      token: owner === undefined ? undefined : tokens[owner],
    })
  ).missing as Array<{ scope: string; member_id: string; last_submitted_at: string | null }>;

beforeAll(async () => {
  gw = await startGateway();
  await ok('POST', '/settings/currencies', { body: { currency: 'EUR' } });
  await ok('POST', '/settings/periods', { body: { period: 'monthly' } });
  await importAt(OPEN, BEFORE);
  const members = (await ok('GET', '/teams/members', { query: { limit: 100 } })).members as Array<{
    member_id: string;
    email: string;
  }>;
  for (const owner of OWNERS)
    ids[owner.id] = members.find((m) => m.email === owner.email)!.member_id;
  await ok('PATCH', `/teams/members/${ids['201']}`, { body: { role: 'manager' } });
  await ok('PATCH', `/teams/members/${ids['203']}`, { body: { role: 'manager' } });
  await ok('PATCH', `/teams/members/${ids['205']}`, { body: { role: 'admin' } });
  for (const owner of OWNERS) tokens[owner.id] = await gw.tokenFor(ids[owner.id]);
});
afterAll(async () => gw?.stop());

describe('the cadence', () => {
  it('is set by an admin only, and read by everyone', async () => {
    expect((await gw.request('GET', '/settings/forecast-cadence')).status).toBe(404);
    expect((await gw.request('GET', '/forecasts/missing')).status).toBe(409);
    const refused = await gw.request('PUT', '/settings/forecast-cadence', {
      body: { every: 'week', day: 'monday' },
      token: tokens['201'],
    });
    expect(refused.status).toBe(403);
    for (const body of [
      { every: 'week', day: 3 },
      { every: 'month', day: 31 },
      { every: 'month', day: 'monday' },
      { every: 'day', day: 1 },
    ])
      expect({
        body,
        status: (await gw.request('PUT', '/settings/forecast-cadence', { body })).status,
      }).toEqual({ body, status: 400 });
    await ok('PUT', '/settings/forecast-cadence', { body: { every: 'week', day: 'Monday' } });
    expect(await ok('GET', '/settings/forecast-cadence', { token: tokens['202'] })).toMatchObject({
      every: 'week',
      day: 'monday',
    });
  });
});

describe('calls missing in the current cadence interval', () => {
  it('are none once everyone due has submitted', async () => {
    await submit('202', 3000);
    await submit('204', 2000);
    await submit('201', 500);
    await submit('201', 3500, 'team:east');
    await submit('203', 0);
    await submit('203', 2000, 'team:west');
    const answer = await ok('GET', '/forecasts/missing', { query: { period: nameOf(P) } });
    expect(answer).toMatchObject({
      period: nameOf(P),
      cadence: { every: 'week', day: 'monday' },
      interval: {
        start: new Date(MONDAY.getTime() - 7 * DAY).toISOString(),
        end: MONDAY.toISOString(),
      },
      missing: [],
    });
  });

  it('are everyone’s again once the clock passes the cadence point, each caller seeing their own', async () => {
    await importAt(OPEN, AFTER);
    const last = BEFORE.toISOString();
    const all = await missingAs();
    expect(all.map((m) => m.scope).sort()).toEqual(
      [
        `member:${ids['201']}`,
        `member:${ids['202']}`,
        `member:${ids['203']}`,
        `member:${ids['204']}`,
        'team:east',
        'team:west',
      ].sort(),
    );
    expect(all.every((m) => m.last_submitted_at === last)).toBe(true);
    expect((await missingAs('201')).map((m) => m.scope).sort()).toEqual(
      [`member:${ids['201']}`, `member:${ids['202']}`, 'team:east'].sort(),
    );
    expect((await missingAs('202')).map((m) => m.scope)).toEqual([`member:${ids['202']}`]);
    const call = await submit('202', 4500);
    expect(call.submission.submitted_at).toBe(AFTER.toISOString());
    expect(await missingAs('202')).toEqual([]);
    expect((await missingAs()).map((m) => m.scope)).not.toContain(`member:${ids['202']}`);
  });
});

describe('accuracy', () => {
  it('is refused while the period runs', async () => {
    const answer = await gw.request('GET', '/forecasts/accuracy', { query: { period: nameOf(P) } });
    expect(answer.status).toBe(409);
    expect(answer.body.message).toContain('has not ended');
  });

  it('compares each call standing at each cadence point with what was won, once the period has ended', async () => {
    await importAt(CLOSED, ENDED);
    expect(
      (
        await gw.request('POST', '/forecasts/submissions', {
          body: { period: nameOf(P), call: 1 },
          token: tokens['202'],
        })
      ).status,
    ).toBe(409);
    expect(
      (await gw.request('GET', '/forecasts/missing', { query: { period: nameOf(P) } })).status,
    ).toBe(409);

    const answer = await ok('GET', '/forecasts/accuracy', {
      query: { period: nameOf(P), scope: 'company' },
    });
    const points: Date[] = [];
    for (let t = MONDAY.getTime() - 7 * DAY * 10; t < P.endsBefore.getTime(); t += 7 * DAY)
      if (t > P.startsAt.getTime()) points.push(new Date(t));
    points.push(P.endsBefore);
    expect(answer.cadence_points).toEqual(points.map((p) => p.toISOString()));

    const won = (owner: string) =>
      CLOSED.filter((d) => d.owner === owner && d.stage.endsWith('won')).reduce(
        (s, d) => s + d.amount,
        0,
      );
    const standing = (calls: Array<[Date, number]>, actual: number) =>
      points.flatMap((p) => {
        const before = calls.filter(([at]) => at.getTime() < p.getTime()).at(-1);
        return before
          ? [
              {
                cadence_point: p.toISOString(),
                submitted_at: before[0].toISOString(),
                call: before[1],
                error_pct: Math.round(((before[1] - actual) / actual) * 10000) / 100,
              },
            ]
          : [];
      });
    const grace = answer.members.find((m: { member_id: string }) => m.member_id === ids['202']);
    expect(grace).toEqual({
      member_id: ids['202'],
      team_id: 'east',
      actual: won('202'),
      submissions: standing(
        [
          [BEFORE, 3000],
          [AFTER, 4500],
        ],
        won('202'),
      ),
    });
    const east = answer.teams.find((t: { team_id: string }) => t.team_id === 'east');
    expect(east).toEqual({
      team_id: 'east',
      actual: won('201') + won('202'),
      submissions: standing([[BEFORE, 3500]], won('201') + won('202')),
    });
    const bob = answer.members.find((m: { member_id: string }) => m.member_id === ids['204']);
    expect(bob.actual).toBe(0);
    expect(bob.submissions.every((s: { error_pct: number | null }) => s.error_pct === null)).toBe(
      true,
    );
    expect(answer.rollup).toEqual({ actual: won('201') + won('202'), submissions: [] });
  });

  it('follows the forecast’s reading rights', async () => {
    const own = await ok('GET', '/forecasts/accuracy', {
      query: { period: nameOf(P) },
      token: tokens['202'],
    });
    expect(own.scope).toBe(`member:${ids['202']}`);
    expect(own.rollup.submissions.length).toBeGreaterThan(0);
    expect(
      (
        await gw.request('GET', '/forecasts/accuracy', {
          query: { period: nameOf(P), scope: 'company' },
          token: tokens['202'],
        })
      ).status,
    ).toBe(403);
    const team = await ok('GET', '/forecasts/accuracy', {
      query: { period: nameOf(P) },
      token: tokens['203'],
    });
    expect(team.scope).toBe('team:west');
    const graphql = await gw.graphql(
      `query ($p: String!) { forecastAccuracy(period: $p) { scope rollup { actual submissions { call errorPct } } } }`,
      { p: nameOf(P) },
      tokens['203'],
    );
    expect(graphql.body.data.forecastAccuracy).toEqual({
      scope: 'team:west',
      rollup: {
        actual: team.rollup.actual,
        submissions: team.rollup.submissions.map(
          (s: { call: number; error_pct: number | null }) => ({
            call: s.call,
            errorPct: s.error_pct,
          }),
        ),
      },
    });
  });
});
