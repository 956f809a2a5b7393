import { METRIC_CATALOGUE } from '../../src/domain/metric-catalogue';
import { setCurrency, setPeriod } from '../../src/services/settings.service';
import { MAIN_FIXTURE, SALES } from './fixtures/crm-fixture';
import { ADMIN, startDatabase, TestDatabase } from './support/database';
import { dealsIn, expectedMetrics, ownersIn, Window } from './support/expected';
import { queryData, runGraphQL } from './support/graphql';
import {
  ImportedScenario,
  importScenario,
  scopeOf,
  setTargets,
  targetSum,
} from './support/scenario';
import { requestContext } from './support/context';

const SNAPSHOT_AT = '2026-05-20T12:00:00Z';
const QUARTER: Window = { start: '2026-04-01', end: '2026-06-30' };
const MAY: Window = { start: '2026-05-01', end: '2026-05-31' };
// w20 of 2026: day 7·19+1 = 134th day (14 May) to 20 May
const WEEK_20: Window = { start: '2026-05-14', end: '2026-05-20' };

const DASHBOARD = `{
  snapshot {
    id createdAt
    definitions {
      id label
      stages { id label order isClosed probability }
      pipelines { id kind isSubPipeline metrics { definition { id apiCodename unit } value unit } }
    }
  }
}`;

let db: TestDatabase;
let scenario: ImportedScenario;

beforeAll(async () => {
  db = await startDatabase();
  scenario = await importScenario(MAIN_FIXTURE, SNAPSHOT_AT);
});
afterAll(async () => db.stop());

type MetricRow = {
  definition: { id: string; apiCodename: string; unit: string };
  value: number | null;
  unit: string;
};

/** Every pipeline of the dashboard answer against the fixture's own computation. */
async function checkDashboard(
  window: Window,
  targets: Record<string, number[]>,
  index: number,
  currency: string,
) {
  const data = await queryData(DASHBOARD);
  const pipelines = data.snapshot.definitions.flatMap(
    (d: { pipelines: unknown[] }) => d.pipelines,
  ) as Array<{ id: string; metrics: MetricRow[] }>;
  expect(pipelines.length).toBeGreaterThan(6);
  for (const pipeline of pipelines) {
    const scope = scopeOf(MAIN_FIXTURE, scenario, pipeline.id);
    const expected = expectedMetrics(
      MAIN_FIXTURE,
      scope,
      window,
      targetSum(ownersIn(MAIN_FIXTURE, scope), targets, index),
    );
    const got = Object.fromEntries(
      pipeline.metrics.map((m) => [m.definition.apiCodename, m.value]),
    );
    expect({ pipeline: pipeline.id, ...got }).toEqual({ pipeline: pipeline.id, ...expected });
    for (const m of pipeline.metrics) {
      const entry = METRIC_CATALOGUE.find((c) => c.apiCodename === m.definition.apiCodename)!;
      expect(m.definition.id).toBe(entry.id);
      expect(m.unit).toBe(entry.unitKind === 'currency' ? currency : entry.unitKind);
    }
  }
  return pipelines;
}

describe('the pipeline graph', () => {
  it('lists the snapshot, its definitions by display order, stages by order and the pipelines', async () => {
    const data = await queryData(DASHBOARD);
    expect(data.snapshot.id).toBe(scenario.snapshotId);
    // in process the DateTime scalar hands back a Date; over HTTP it is the same instant as ISO text
    expect(new Date(data.snapshot.createdAt).toISOString()).toBe('2026-05-20T12:00:00.000Z');
    expect(
      data.snapshot.definitions.map((d: { id: string; label: string }) => [d.id, d.label]),
    ).toEqual([
      ['sales', 'Sales Pipeline'],
      ['renewals', 'Renewals'],
    ]);
    expect(data.snapshot.definitions[0].stages).toEqual(
      SALES.stages.map((s) => ({
        id: s.id,
        label: s.label,
        order: s.displayOrder,
        isClosed: s.isClosed,
        probability: parseFloat(s.probability),
      })),
    );
    const members = (owners: string[]) => owners.map((o) => scenario.memberOf.get(o)!).sort();
    expect(
      data.snapshot.definitions[0].pipelines.map(
        (p: { id: string; kind: string; isSubPipeline: boolean }) => [
          p.id,
          p.kind,
          p.isSubPipeline,
        ],
      ),
    ).toEqual([
      ['sales', 'COMPLETE', false],
      ['sales.team.east', 'TEAM', true],
      ['sales.team.west', 'TEAM', true],
      ...members(['101', '102', '103']).map((m) => [`sales.member.${m}`, 'MEMBER', true]),
    ]);
    // Grace owns no renewal: no pipeline of hers there
    expect(data.snapshot.definitions[1].pipelines.map((p: { id: string }) => p.id)).toEqual([
      'renewals',
      'renewals.team.east',
      'renewals.team.west',
      ...members(['101', '103']).map((m) => `renewals.member.${m}`),
    ]);
  });

  it('answers only what can be computed before currency, period and targets are set', async () => {
    const data = await queryData(
      `{ pipeline(id: "sales") { metrics { definition { apiCodename } value unit } } }`,
    );
    expect(data.pipeline.metrics).toEqual([
      { definition: { apiCodename: 'open_opportunities' }, value: 6, unit: 'count' },
    ]);
    const named = await runGraphQL(
      `{ pipeline(id: "sales") { metrics(names: ["pipeline_value"]) { value } } }`,
    );
    expect(named.errors?.[0].extensions?.code).toBe('CONFLICT');
    expect(named.errors?.[0].message).toBe(
      'Cannot compute pipeline_value: the currency is not set (POST /settings/currencies)',
    );
  });

  it('computes every metric of every pipeline for the quarter, month and week of the snapshot', async () => {
    await setCurrency(requestContext(ADMIN), 'eur');
    await setPeriod(requestContext(ADMIN), 'quarterly');
    const quarterly = { '101': [10000, 20000, 30000, 40000], '102': [5000, 8000, 0, 0] };
    await setTargets(scenario, 2026, quarterly);
    const pipelines = await checkDashboard(QUARTER, quarterly, 1, 'EUR');
    // Alan has no targets: his pipelines and his team's have no quota metrics
    const west = pipelines.find((p) => p.id === 'sales.team.west')!;
    expect(west.metrics.map((m) => m.definition.apiCodename)).not.toContain('quota_attainment');
    expect(pipelines.find((p) => p.id === 'sales')!.metrics).toHaveLength(8);

    // the period changes later: read time follows it, no re-import
    await setPeriod(requestContext(ADMIN), 'monthly', true);
    const monthly = { '101': Array.from({ length: 12 }, (_, i) => (i + 1) * 1000) };
    await setTargets(scenario, 2026, monthly);
    await checkDashboard(MAY, monthly, 4, 'EUR');

    await setPeriod(requestContext(ADMIN), 'weekly', true);
    const weekly = {
      '102': Array.from({ length: 52 }, () => 700),
      '103': Array.from({ length: 52 }, (_, i) => i * 100),
    };
    await setTargets(scenario, 2026, weekly);
    await setCurrency(requestContext(ADMIN), 'usd');
    await checkDashboard(WEEK_20, weekly, 19, 'USD');
  });

  it('answers a time series through the graph, validating its arguments', async () => {
    // the period is weekly by now; the snapshot of May 2026 lies in none of the last two weeks
    // unless today is in its week, so the points are computed here the same way
    const data =
      await queryData(`{ pipeline(id: "sales") { timeseries(metric: "open_opportunities", duration: 2) {
      metric { apiCodename } unit period points { period year start end value } } } }`);
    const series = data.pipeline.timeseries;
    expect(series).toMatchObject({
      metric: { apiCodename: 'open_opportunities' },
      unit: 'count',
      period: 'WEEKLY',
    });
    expect(series.points).toHaveLength(2);
    const today = new Date().toISOString().slice(0, 10);
    expect(series.points[1].start <= today && today <= series.points[1].end).toBe(true);
    for (const point of series.points) {
      const holdsSnapshot = point.start <= '2026-05-20' && '2026-05-20' <= point.end;
      expect(point.value).toBe(holdsSnapshot ? 6 : null);
    }
    const bad = await runGraphQL(
      `{ pipeline(id: "sales") { timeseries(metric: "open_opportunities", duration: 0) { unit } } }`,
    );
    expect(bad.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('pages through the opportunities of a pipeline with stage and open filters', async () => {
    const ada = scenario.memberOf.get('101')!;
    const id = `sales.member.${ada}`;
    const page = `query($id: ID!, $after: String, $open: Boolean, $stage: ID) {
      pipeline(id: $id) { opportunities(first: 2, after: $after, open: $open, stageId: $stage) {
        edges { cursor node { id name amount outcome stage { id } member { id } team { id } } }
        pageInfo { hasNextPage endCursor } } } }`;
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const data: any = await queryData(page, { id, after });
      const connection = data.pipeline.opportunities;
      seen.push(...connection.edges.map((e: { node: { id: string } }) => e.node.id));
      for (const edge of connection.edges) expect(edge.node.member).toEqual({ id: ada });
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(seen).toEqual(
      dealsIn(MAIN_FIXTURE, { definitionId: 'sales', owners: ['101'] })
        .map((d) => d.id)
        .sort(),
    );

    const open = await queryData(page, { id: 'sales', open: true });
    expect(
      open.pipeline.opportunities.edges.map((e: { node: { id: string } }) => e.node.id),
    ).toEqual(['1001', '1002']);
    const won = await queryData(page.replace('first: 2', 'first: 100'), {
      id: 'sales',
      stage: 'won',
    });
    expect(
      won.pipeline.opportunities.edges.map((e: { node: { id: string; outcome: string } }) => [
        e.node.id,
        e.node.outcome,
      ]),
    ).toEqual(['1003', '1004', '1006', '2003', '2005', '3003', '4001'].map((d) => [d, 'WON']));
    const bad = await runGraphQL(page, { id: 'sales', after: 'bm90LWEtY3Vyc29y' });
    expect(bad.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('links teams and members to their pipelines', async () => {
    const ada = scenario.memberOf.get('101')!;
    const data = await queryData(
      `query($ada: ID!) {
      team(id: "east") { pipelines { id kind team { id } } }
      member(id: $ada) { pipelines { id member { email } definition { id } } }
    }`,
      { ada },
    );
    expect(data.team.pipelines).toEqual(
      [
        { id: 'sales.team.east', kind: 'TEAM', team: { id: 'east' } },
        { id: 'renewals.team.east', kind: 'TEAM', team: { id: 'east' } },
      ].sort((a, b) => (a.id < b.id ? -1 : 1)),
    );
    expect(data.member.pipelines).toEqual(
      [`renewals.member.${ada}`, `sales.member.${ada}`].map((id) => ({
        id,
        member: { email: 'ada@example.com' },
        definition: { id: id.split('.')[0] },
      })),
    );
  });

  it('names the errors: unknown pipeline, unknown snapshot, unknown metric', async () => {
    const unknown = await runGraphQL(`{ pipeline(id: "nope") { id } }`);
    expect(unknown.errors?.[0]).toMatchObject({
      message: expect.stringContaining('Pipeline nope not found'),
      extensions: { code: 'NOT_FOUND' },
    });
    const snapshot = await runGraphQL(`{ snapshot(id: "0000") { id } }`);
    expect(snapshot.errors?.[0]).toMatchObject({
      message: 'Snapshot 0000 not found',
      extensions: { code: 'NOT_FOUND' },
    });
    const metric = await runGraphQL(
      `{ pipeline(id: "sales") { metrics(names: ["revenue"]) { value } } }`,
    );
    expect(metric.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(metric.errors?.[0].message).toContain(
      'allowed: pipeline_value, weighted_pipeline_value, open_opportunities',
    );
    const catalogue = await queryData(`{ metricDefinitions { id apiCodename unit } }`);
    expect(catalogue.metricDefinitions).toEqual(
      METRIC_CATALOGUE.map((c) => ({ id: c.id, apiCodename: c.apiCodename, unit: c.unitKind })),
    );
  });

  it('pages through snapshots newest first and reads a pipeline of an older one', async () => {
    const later = await importScenario(
      { ...MAIN_FIXTURE, deals: MAIN_FIXTURE.deals.slice(0, 3) },
      '2026-05-22T00:00:00Z',
    );
    const first = await queryData(
      `{ snapshots(first: 1) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }`,
    );
    expect(first.snapshots.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([
      later.snapshotId,
    ]);
    expect(first.snapshots.pageInfo.hasNextPage).toBe(true);
    const second = await queryData(
      `query($after: String) { snapshots(first: 5, after: $after) { edges { node { id } } pageInfo { hasNextPage } } }`,
      {
        after: first.snapshots.pageInfo.endCursor,
      },
    );
    expect(second.snapshots).toEqual({
      edges: [{ node: { id: scenario.snapshotId } }],
      pageInfo: { hasNextPage: false },
    });

    for (const after of [
      Buffer.from('s:not-a-date').toString('base64url'),
      Buffer.from('o:1001').toString('base64url'),
      'a b',
    ]) {
      const bad = await runGraphQL(
        `query($after: String) { snapshots(after: $after) { edges { cursor } } }`,
        { after },
      );
      expect(bad.errors?.[0]).toMatchObject({
        extensions: { code: 'BAD_USER_INPUT' },
        message: expect.stringContaining(
          'Invalid after: expected a cursor returned by a previous page',
        ),
      });
    }

    const count = `query($snapshot: ID) { pipeline(id: "sales", snapshotId: $snapshot) { metrics(names: ["open_opportunities"]) { value } } }`;
    expect((await queryData(count)).pipeline.metrics).toEqual([{ value: 2 }]); // 1001 and 1002
    expect((await queryData(count, { snapshot: scenario.snapshotId })).pipeline.metrics).toEqual([
      { value: 6 },
    ]);
  });
});
