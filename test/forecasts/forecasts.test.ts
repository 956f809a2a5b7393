import { randomUUID } from 'node:crypto';
import { startGateway, type TestGateway } from '../helpers/gateway';
import {
  dayIn,
  expectedCategory,
  importBody,
  nameOf,
  OWNERS,
  slotFrom,
  sums,
  type Category,
  type Deal,
} from './support/forecast-fixture';

// Forecast categories, the forecast of a period, submissions and the role table, over HTTP (REST
// and GraphQL), in both database modes. The clock is the server's: every date is taken relative to
// now, inside the current quarter, the one before and the one after.

const NOW = new Date();
const Q = slotFrom('quarterly', NOW);
const NEXT = slotFrom('quarterly', NOW, 1);
const PREVIOUS = slotFrom('quarterly', NOW, -1);
const DAY = 86_400_000;

const DEALS: Deal[] = [
  // Ada (201): every source of a category.
  {
    id: 'd1',
    pipeline: 'sales',
    stage: 's-lead',
    amount: 1000,
    owner: '201',
    closedate: dayIn(Q, 10),
    manual: 'COMMIT',
  },
  {
    id: 'd2',
    pipeline: 'sales',
    stage: 's-lead',
    amount: 2000,
    owner: '201',
    closedate: dayIn(Q, 20),
    hubspot: 'BEST_CASE',
  },
  {
    id: 'd3',
    pipeline: 'sales',
    stage: 's-nego',
    amount: 3000,
    owner: '201',
    closedate: dayIn(Q, 30),
    manual: 'OMIT',
  },
  {
    id: 'd4',
    pipeline: 'sales',
    stage: 's-mapped',
    amount: 4000,
    owner: '201',
    closedate: dayIn(Q, 40),
  },
  {
    id: 'd5',
    pipeline: 'sales',
    stage: 's-won',
    amount: 5000,
    owner: '201',
    closedate: dayIn(Q, 5),
    manual: 'COMMIT',
  },
  {
    id: 'd6',
    pipeline: 'sales',
    stage: 's-lead',
    amount: 600,
    owner: '201',
    closedate: dayIn(Q, 50),
    manual: 'MAYBE',
  },
  // Grace (202)
  {
    id: 'd7',
    pipeline: 'sales',
    stage: 's-demo',
    amount: 700,
    owner: '202',
    closedate: dayIn(Q, 15),
  },
  {
    id: 'd8',
    pipeline: 'sales',
    stage: 's-nego',
    amount: 800,
    owner: '202',
    closedate: dayIn(Q, 60),
  },
  {
    id: 'd9',
    pipeline: 'renewals',
    stage: 'r-won',
    amount: 900,
    owner: '202',
    closedate: dayIn(Q, 2),
  },
  {
    id: 'd10',
    pipeline: 'sales',
    stage: 's-lost',
    amount: 1100,
    owner: '202',
    closedate: dayIn(Q, 3),
  },
  {
    id: 'd11',
    pipeline: 'sales',
    stage: 's-demo',
    amount: 1200,
    owner: '202',
    closedate: dayIn(NEXT, 10),
  },
  // Alan (203), Bob (204)
  {
    id: 'd12',
    pipeline: 'renewals',
    stage: 'r-open',
    amount: 1300,
    owner: '203',
    closedate: dayIn(Q, 25),
  },
  {
    id: 'd13',
    pipeline: 'sales',
    stage: 's-won',
    amount: 1400,
    owner: '203',
    closedate: dayIn(PREVIOUS, 30),
  },
  {
    id: 'd14',
    pipeline: 'sales',
    stage: 's-mapped',
    amount: 1500,
    owner: '204',
    closedate: dayIn(Q, 45),
  },
  {
    id: 'd15',
    pipeline: 'sales',
    stage: 's-won',
    amount: 1600,
    owner: '204',
    closedate: dayIn(Q, 35),
  },
  // Root (205), the admin
  {
    id: 'd16',
    pipeline: 'sales',
    stage: 's-nego',
    amount: 1700,
    owner: '205',
    closedate: dayIn(Q, 12),
  },
  // Nobody's: the company only.
  {
    id: 'd17',
    pipeline: 'sales',
    stage: 's-won',
    amount: 1800,
    owner: null,
    closedate: dayIn(Q, 8),
  },
  {
    id: 'd18',
    pipeline: 'sales',
    stage: 's-demo',
    amount: 1900,
    owner: null,
    closedate: dayIn(Q, 9),
    salesforce: 'Omitted',
  },
];

/** The deals as the second snapshot has them: d1 without its CRM category. */
const DEALS_LATER: Deal[] = DEALS.map((d) => (d.id === 'd1' ? { ...d, manual: undefined } : d));

const MAPPING: Record<string, Category> = { 's-mapped': 'commit' };

let gw: TestGateway;
let first: string;
let second: string;
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

async function categoriesOf(snapshotId: string, pipelineId: string) {
  const answer = await gw.graphql(
    `query ($s: ID, $p: ID!) { pipeline(id: $p, snapshotId: $s) { opportunities(first: 100) {
       edges { node { id forecastCategory forecastCategorySource } } } } }`,
    { s: snapshotId, p: pipelineId },
  );
  expect(answer.body.errors).toBeUndefined();
  return Object.fromEntries(
    answer.body.data.pipeline.opportunities.edges.map(
      ({
        node,
      }: {
        node: { id: string; forecastCategory: string; forecastCategorySource: string };
      }) => [
        node.id,
        {
          category: node.forecastCategory.toLowerCase(),
          source: node.forecastCategorySource.toLowerCase(),
        },
      ],
    ),
  );
}

beforeAll(async () => {
  gw = await startGateway();
  await ok('POST', '/settings/currencies', { body: { currency: 'EUR' } });
  await ok('POST', '/settings/periods', { body: { period: 'quarterly' } });
  first = (
    await ok('POST', '/crm/imports', {
      body: importBody(DEALS, { snapshot_at: new Date(NOW.getTime() - 2 * DAY).toISOString() }),
    })
  ).snapshot_id;
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

describe('forecast categories', () => {
  it('maps stages only for stages of the latest snapshot, admin only', async () => {
    const put = (body: unknown, token?: string) =>
      gw.request('PUT', '/settings/forecast-categories', { body, token });
    expect(
      (
        await put(
          { pipeline_definition_id: 'sales', stages: { 's-mapped': 'commit' } },
          tokens['203'],
        )
      ).status,
    ).toBe(403);
    expect((await put({ pipeline_definition_id: 'nope', stages: {} })).status).toBe(404);
    const bad = await put({
      pipeline_definition_id: 'sales',
      stages: { 's-won': 'commit', 's-demo': 'maybe', ghost: 'commit' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'stages.ghost',
      'stages.s-demo',
      'stages.s-won',
    ]);
    expect(
      (
        await gw.request('GET', '/settings/forecast-categories', {
          query: { pipeline_definition_id: 'sales' },
        })
      ).status,
    ).toBe(404);
    const set = await put({ pipeline_definition_id: 'sales', stages: MAPPING });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ pipeline_definition_id: 'sales', stages: MAPPING });
    const read = await gw.request('GET', '/settings/forecast-categories', {
      query: { pipeline_definition_id: 'sales' },
      token: tokens['204'],
    });
    expect(read.body).toMatchObject({
      success: true,
      pipeline_definition_id: 'sales',
      stages: MAPPING,
    });
    // The import after it applies it; d1's CRM category is gone from the CRM by then.
    second = (
      await ok('POST', '/crm/imports', {
        body: importBody(DEALS_LATER, { snapshot_at: new Date(NOW.getTime() - DAY).toISOString() }),
      })
    ).snapshot_id;
  });

  it('takes the CRM category, else the stage mapping, else the probability; won closed, lost omitted', async () => {
    const latest = {
      ...(await categoriesOf(second, 'sales')),
      ...(await categoriesOf(second, 'renewals')),
    };
    const expected = Object.fromEntries(
      DEALS_LATER.map((d) => [d.id, expectedCategory(d, MAPPING)]),
    );
    expect(latest).toEqual(expected);
    expect(latest.d1).toEqual({ category: 'pipeline', source: 'probability' });
    expect(latest.d2).toEqual({ category: 'best_case', source: 'crm' });
    expect(latest.d3).toEqual({ category: 'omitted', source: 'crm' });
    expect(latest.d4).toEqual({ category: 'commit', source: 'mapping' });
    expect(latest.d5).toEqual({ category: 'closed', source: 'outcome' });
    expect(latest.d6).toEqual({ category: 'pipeline', source: 'probability' });
    expect(latest.d18).toEqual({ category: 'omitted', source: 'crm' });
  });

  it('keeps in an older snapshot the categories it was imported with', async () => {
    const old = {
      ...(await categoriesOf(first, 'sales')),
      ...(await categoriesOf(first, 'renewals')),
    };
    expect(old).toEqual(Object.fromEntries(DEALS.map((d) => [d.id, expectedCategory(d, {})])));
    expect(old.d1).toEqual({ category: 'commit', source: 'crm' });
    expect(old.d4).toEqual({ category: 'pipeline', source: 'probability' });
  });

  it('notes a CRM category it cannot read among the skipped items, and keeps the deal', async () => {
    const imported = await gw.request('POST', '/crm/imports', {
      body: importBody(DEALS_LATER, { snapshot_at: new Date(NOW.getTime() - DAY).toISOString() }),
    });
    expect(imported.body.snapshot_id).toBe(second);
    expect(imported.body.skipped).toContainEqual({
      id: 'd6',
      reason: expect.stringContaining(
        'hs_manual_forecast_category "MAYBE", which is no forecast category',
      ),
    });
  });
});

describe('the forecast of a period', () => {
  const round = (s: Record<string, number>) =>
    Object.fromEntries(Object.entries(s).map(([k, v]) => [k, Math.round(v * 100) / 100]));
  const owned = (owners: string[]) =>
    DEALS_LATER.filter((d) => d.owner !== null && owners.includes(d.owner));

  it('sums the company, each team and each member from the latest snapshot', async () => {
    for (const slot of [Q, NEXT, PREVIOUS]) {
      const body = await ok('GET', '/forecasts', {
        query: { period: nameOf(slot), scope: 'company' },
      });
      expect(body).toMatchObject({
        period: nameOf(slot),
        start: slot.start,
        end: slot.end,
        currency: 'EUR',
        scope: 'company',
        snapshot_id: second,
      });
      const pick = (row: Record<string, number>) => ({
        closed: row.closed,
        commit: row.commit,
        best_case: row.best_case,
        pipeline: row.pipeline,
      });
      expect(pick(body.rollup)).toEqual(round({ ...sums(DEALS_LATER, slot, MAPPING) }));
      for (const team of ['east', 'west']) {
        const row = body.teams.find((t: { team_id: string }) => t.team_id === team);
        const owners = OWNERS.filter((o) => o.team === team).map((o) => o.id);
        expect(pick(row)).toEqual(round({ ...sums(owned(owners), slot, MAPPING) }));
      }
      for (const owner of OWNERS) {
        const row = body.members.find((m: { member_id: string }) => m.member_id === ids[owner.id]);
        expect(row.team_id).toBe(owner.team);
        expect(pick(row)).toEqual(round({ ...sums(owned([owner.id]), slot, MAPPING) }));
      }
    }
  });

  it('reads the current period when none is named, and the caller’s own scope', async () => {
    const admin = await ok('GET', '/forecasts');
    expect(admin).toMatchObject({ period: nameOf(Q), scope: 'company' });
    const manager = await ok('GET', '/forecasts', { token: tokens['201'] });
    expect(manager).toMatchObject({ period: nameOf(Q), scope: 'team:east' });
    const member = await ok('GET', '/forecasts', { token: tokens['202'] });
    expect(member).toMatchObject({ scope: `member:${ids['202']}` });
    expect(member.members).toHaveLength(1);
    expect(member.teams).toEqual([]);
  });

  it('refuses a period in another unit or malformed, and a scope it cannot read', async () => {
    for (const period of ['2026-m11', '2026-Q5', 'Q4', '1999-Q1']) {
      const answer = await gw.request('GET', '/forecasts', { query: { period } });
      expect({ period, status: answer.status }).toEqual({ period, status: 400 });
      expect(answer.body.errors[0].field).toBe('period');
    }
    expect(
      (await gw.request('GET', '/forecasts', { query: { scope: 'region:north' } })).status,
    ).toBe(400);
    expect(
      (await gw.request('GET', '/forecasts', { query: { scope: 'team:nowhere' } })).status,
    ).toBe(404);
    expect(
      (await gw.request('GET', '/forecasts', { query: { scope: 'member:nobody' } })).status,
    ).toBe(404);
  });
});

describe('submissions', () => {
  const submit = (body: Record<string, unknown>, token?: string) =>
    gw.request('POST', '/forecasts/submissions', { body: { period: nameOf(Q), ...body }, token });

  it('takes a member’s own call, a manager’s for their team, an admin’s for the company', async () => {
    const own = await submit(
      { call: 2500, best_case: 3000, note: 'two deals in doubt' },
      tokens['202'],
    );
    expect(own.status).toBe(200);
    expect(own.body.submission).toMatchObject({
      period: nameOf(Q),
      scope: `member:${ids['202']}`,
      call: 2500,
      best_case: 3000,
      note: 'two deals in doubt',
      submitted_by: { member_id: ids['202'], role: 'member' },
    });
    expect((await submit({ call: 2700 }, tokens['202'])).status).toBe(200);
    expect((await submit({ call: 9000 }, tokens['201'])).status).toBe(200);
    expect((await submit({ call: 12000, scope: 'team:east' }, tokens['201'])).status).toBe(200);
    expect((await submit({ call: 4000, scope: 'team:west' }, tokens['203'])).status).toBe(200);
    expect((await submit({ call: 3000 }, tokens['204'])).status).toBe(200);
    expect(
      (await submit({ call: 1700, scope: `member:${ids['205']}` }, tokens['205'])).status,
    ).toBe(200);
    const company = await submit({ call: 30000 });
    expect(company.body.submission).toMatchObject({
      scope: 'company',
      submitted_by: { member_id: null, role: 'admin' },
    });
  });

  it.each<[string, string, () => Record<string, unknown>, number]>([
    ['a member, for another member', '202', () => ({ scope: `member:${ids['204']}` }), 403],
    ['a member, for their team', '202', () => ({ scope: 'team:east' }), 403],
    ['a manager, for another team', '201', () => ({ scope: 'team:west' }), 403],
    [
      'a manager, for a member of their team',
      '201',
      () => ({ scope: `member:${ids['202']}` }),
      403,
    ],
    ['a manager, for the company', '201', () => ({ scope: 'company' }), 403],
    ['anyone, for a period that has ended', '202', () => ({ period: nameOf(PREVIOUS) }), 409],
    ['anyone, for an unknown member', '205', () => ({ scope: 'member:nobody' }), 404],
  ])('refuses %s', async (_what, owner, body, status) => {
    const answer = await submit({ call: 1, ...body() }, tokens[owner]);
    expect(answer.status).toBe(status);
  });

  it('refuses bad input and changes nothing', async () => {
    const before = (
      await ok('GET', '/forecasts/submissions', { query: { scope: 'company', limit: 100 } })
    ).submissions.length;
    for (const body of [
      { call: -1 },
      { call: 'much' },
      { period: '2026-w3', call: 1 },
      { call: 1, extra: true },
    ]) {
      expect((await submit(body, tokens['202'])).status).toBe(400);
    }
    expect(
      (await ok('GET', '/forecasts/submissions', { query: { scope: 'company', limit: 100 } }))
        .submissions,
    ).toHaveLength(before);
  });

  it('keeps every call; the latest counts', async () => {
    const history = await ok('GET', '/forecasts/submissions', {
      query: { period: nameOf(Q), scope: `member:${ids['202']}` },
      token: tokens['202'],
    });
    expect(history.submissions.map((s: { call: number }) => s.call)).toEqual([2700, 2500]);
    const forecast = await ok('GET', '/forecasts', {
      query: { period: nameOf(Q), scope: 'company' },
    });
    const grace = forecast.members.find((m: { member_id: string }) => m.member_id === ids['202']);
    expect(grace.submitted_call).toBe(2700);
    expect(forecast.rollup).toMatchObject({
      submitted_call: 2700 + 9000 + 3000 + 1700,
      adjusted_call: 30000,
    });
    const east = forecast.teams.find((t: { team_id: string }) => t.team_id === 'east');
    expect(east).toMatchObject({ submitted_call: 2700 + 9000 + 1700, adjusted_call: 12000 });
    const page = await ok('GET', '/forecasts/submissions', {
      query: { scope: 'company', limit: 3 },
    });
    expect(page.submissions).toHaveLength(3);
    const rest = await ok('GET', '/forecasts/submissions', {
      query: { scope: 'company', limit: 100, cursor: page.next_cursor },
    });
    expect(rest.next_cursor).toBeNull();
    expect(page.submissions.length + rest.submissions.length).toBe(8);
  });
});

describe('who may read what (the role table)', () => {
  const get = (query: Record<string, string>, owner?: string) =>
    gw.request('GET', '/forecasts', {
      query: { period: nameOf(Q), ...query },
      token: owner && tokens[owner],
    });

  beforeAll(async () => {
    await ok('POST', `/teams/members/${ids['201']}/targets`, {
      body: { targets: [10, 20, 30, 40], year: Q.year },
    });
    await ok('POST', `/teams/members/${ids['202']}/targets`, {
      body: { targets: [1, 2, 3, 4], year: Q.year },
    });
    await ok('POST', `/teams/members/${ids['205']}/targets`, {
      body: { targets: [5, 5, 5, 5], year: Q.year },
    });
  });

  it('a member reads their own forecast and calls, with their target, and nothing else', async () => {
    const own = await get({ scope: `member:${ids['202']}` }, '202');
    expect(own.status).toBe(200);
    expect(own.body.rollup).toMatchObject({
      target: Q.index,
      submitted_call: 2700,
      adjusted_call: null,
    });
    for (const scope of ['company', 'team:east', `member:${ids['201']}`]) {
      expect((await get({ scope }, '202')).status).toBe(403);
      expect(
        (
          await gw.request('GET', '/forecasts/submissions', {
            query: { scope },
            token: tokens['202'],
          })
        ).status,
      ).toBe(403);
    }
  });

  it('a manager reads their team and its members, never an admin’s calls, never another team', async () => {
    const team = await get({ scope: 'team:east' }, '201');
    expect(team.status).toBe(200);
    const root = team.body.members.find((m: { member_id: string }) => m.member_id === ids['205']);
    expect(root).toMatchObject({ submitted_call: null, submitted_at: null });
    expect(team.body.rollup).toMatchObject({ adjusted_call: 12000, submitted_call: 2700 + 9000 });
    expect(team.body.rollup.target).toBe(10 * Q.index + Q.index + 5);
    expect((await get({ scope: `member:${ids['202']}` }, '201')).status).toBe(200);
    for (const scope of ['company', 'team:west', `member:${ids['205']}`, `member:${ids['204']}`])
      expect({ scope, status: (await get({ scope }, '201')).status }).toEqual({
        scope,
        status: 403,
      });
    const calls = await ok('GET', '/forecasts/submissions', {
      query: { scope: 'team:east', limit: 100 },
      token: tokens['201'],
    });
    expect(calls.submissions.map((s: { scope: string }) => s.scope).sort()).toEqual(
      [`member:${ids['201']}`, `member:${ids['202']}`, `member:${ids['202']}`, 'team:east'].sort(),
    );
  });

  it('an admin reads every scope and every call', async () => {
    const team = await get({ scope: 'team:east' });
    const root = team.body.members.find((m: { member_id: string }) => m.member_id === ids['205']);
    expect(root.submitted_call).toBe(1700);
    expect((await get({ scope: `member:${ids['205']}` })).status).toBe(200);
  });

  it('withholds a target the caller may not read, and every sum that includes it', async () => {
    // Grace moves to west: her deals stay in east's figures until the next import.
    await ok('POST', `/teams/members/${ids['202']}`, { body: { team_id: 'west' } });
    const team = await get({ scope: 'team:east' }, '201');
    const grace = team.body.members.find((m: { member_id: string }) => m.member_id === ids['202']);
    expect(grace).not.toHaveProperty('target');
    expect(grace.submitted_call).toBeNull();
    expect(team.body.rollup).not.toHaveProperty('target');
    expect(team.body.teams[0]).not.toHaveProperty('target');
    const ada = team.body.members.find((m: { member_id: string }) => m.member_id === ids['201']);
    expect(ada.target).toBe(10 * Q.index);
    const asAdmin = await get({ scope: 'team:east' });
    expect(asAdmin.body.rollup.target).toBe(10 * Q.index + Q.index + 5);
    const graphql = await gw.graphql(
      `{ forecast(scope: "team:east") { rollup { target } members { memberId target } } }`,
      {},
      tokens['201'],
    );
    expect(graphql.body.data.forecast.rollup.target).toBeNull();
    await ok('POST', `/teams/members/${ids['202']}`, { body: { team_id: 'east' } });
  });
});

describe('GraphQL', () => {
  it('answers forecast, Member.forecast and submitForecast as REST does', async () => {
    const rest = await ok('GET', '/forecasts', {
      query: { scope: `member:${ids['202']}` },
      token: tokens['202'],
    });
    const answer = await gw.graphql(
      `query { me { forecast { period scope rollup { closed commit bestCase pipeline target submittedCall } } } }`,
      {},
      tokens['202'],
    );
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data.me.forecast).toEqual({
      period: rest.period,
      scope: rest.scope,
      rollup: {
        closed: rest.rollup.closed,
        commit: rest.rollup.commit,
        bestCase: rest.rollup.best_case,
        pipeline: rest.rollup.pipeline,
        target: rest.rollup.target,
        submittedCall: rest.rollup.submitted_call,
      },
    });
    const submitted = await gw.graphql(
      `mutation ($p: String!) { submitForecast(input: { period: $p, call: 2800 }) { scope call submittedBy { role } } }`,
      { p: nameOf(Q) },
      tokens['202'],
    );
    expect(submitted.body.data.submitForecast).toEqual({
      scope: `member:${ids['202']}`,
      call: 2800,
      submittedBy: { role: 'MEMBER' },
    });
    const refused = await gw.graphql(
      `mutation ($p: String!) { submitForecast(input: { period: $p, call: 1, scope: "company" }) { call } }`,
      { p: nameOf(Q) },
      tokens['202'],
    );
    expect(refused.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const other = await gw.graphql(
      `query ($id: ID!) { member(id: $id) { forecast { scope } } }`,
      { id: ids['204'] },
      tokens['202'],
    );
    expect(other.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('a retried call', () => {
  it('is kept once when it carries the Idempotency-Key of the first, and replays its answer', async () => {
    const history = async () =>
      (
        await ok('GET', '/forecasts/submissions', {
          query: { period: nameOf(Q), scope: `member:${ids['203']}`, limit: 100 },
        })
      ).submissions as unknown[];
    const before = (await history()).length;
    const headers = { 'idempotency-key': randomUUID() };
    const send = () =>
      gw.request('POST', '/forecasts/submissions', {
        body: { period: nameOf(Q), call: 4100 },
        token: tokens['203'],
        headers,
      });
    const first = await send();
    expect(first.status).toBe(200);
    const again = await send();
    expect(again).toMatchObject({ status: 200, body: first.body });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await history()).toHaveLength(before + 1);
  });
});
