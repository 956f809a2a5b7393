import { METRIC_CATALOGUE, METRIC_NAMES } from '../../src/domain/metric-catalogue';
import {
  CrmFixture,
  MAIN_DEALS,
  MAIN_FIXTURE,
  RENEWALS,
  SALES,
  toImportBody,
} from './fixtures/crm-fixture';
import { expectedMetrics, ExpectedMetrics, ownersIn, Window } from './support/expected';
import { ImportedScenario, scopeOf, setTargets, targetSum } from './support/scenario';
import { CrmOwnerLinkModel } from '../../src/models/crm-owner-link.model';
import { RequestOptions, startGateway, TestGateway } from '../helpers/gateway';

const QUARTER: Window = { start: '2026-04-01', end: '2026-06-30' };
const QUARTERLY_TARGETS = { '101': [10000, 20000, 30000, 40000], '102': [5000, 8000, 0, 0] };
const ID = Object.fromEntries(METRIC_CATALOGUE.map((c) => [c.apiCodename, c.id]));

let gw: TestGateway;
let scenario: ImportedScenario;

async function importFixture(fixture: CrmFixture, snapshotAt: string): Promise<string> {
  const answer = await gw.request('POST', '/crm/imports', {
    body: toImportBody(fixture, snapshotAt),
  });
  expect(answer.status).toBe(200);
  return answer.body.snapshot_id;
}

beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => gw.stop());

/** The documented metric entries of a pipeline, in catalogue order, from the fixture. */
function expectedEntries(pipelineId: string, expected: ExpectedMetrics, currency: string) {
  return METRIC_CATALOGUE.filter((c) => c.apiCodename in expected).map((c) => ({
    metric_definition: { id: c.id, api_codename: c.apiCodename },
    scope: { pipeline: pipelineId },
    metric_value: {
      value: expected[c.apiCodename as keyof ExpectedMetrics],
      unit: c.unitKind === 'currency' ? currency : c.unitKind,
    },
  }));
}

describe('GET /pipelines, /pipelines/stages', () => {
  it('answers 404 before the first import', async () => {
    const answer = await gw.request('GET', '/pipelines');
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({
      success: false,
      statusCode: 404,
      message: 'No pipeline snapshot yet: import CRM data first (POST /crm/imports)',
    });
  });

  it('lists the latest snapshot, its definitions and their pipelines', async () => {
    const snapshotId = await importFixture(MAIN_FIXTURE, '2026-05-20T12:00:00Z');
    const links = await CrmOwnerLinkModel.find({}).lean();
    const memberOf = new Map(links.map((l) => [l._id as string, l.memberId]));
    scenario = {
      snapshotId,
      memberOf,
      ownerOf: new Map(links.map((l) => [l.memberId, l._id as string])),
    };
    const member = (owner: string, def: string) => ({
      id: `${def}.member.${memberOf.get(owner)}`,
      is_sub_pipeline: true,
    });
    const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);

    const answer = await gw.request('GET', '/pipelines');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      snapshot_id: snapshotId,
      created_at: '2026-05-20 12:00:00',
      pipeline_definitions: [
        {
          label: 'Sales Pipeline',
          pipeline_definition_id: 'sales',
          pipelines: [
            { id: 'sales', is_sub_pipeline: false },
            { id: 'sales.team.east', is_sub_pipeline: true },
            { id: 'sales.team.west', is_sub_pipeline: true },
            ...['101', '102', '103'].map((o) => member(o, 'sales')).sort(byId),
          ],
        },
        {
          label: 'Renewals',
          pipeline_definition_id: 'renewals',
          pipelines: [
            { id: 'renewals', is_sub_pipeline: false },
            { id: 'renewals.team.east', is_sub_pipeline: true },
            { id: 'renewals.team.west', is_sub_pipeline: true },
            ...['101', '103'].map((o) => member(o, 'renewals')).sort(byId),
          ],
        },
      ],
    });

    // a later snapshot becomes the latest; the older one stays readable by id
    const later = await importFixture(
      {
        ...MAIN_FIXTURE,
        definitions: [SALES],
        deals: MAIN_DEALS.filter((d) => d.pipeline === 'sales'),
      },
      '2026-05-21T08:30:00Z',
    );
    const latest = await gw.request('GET', '/pipelines');
    expect(latest.body).toMatchObject({ snapshot_id: later, created_at: '2026-05-21 08:30:00' });
    expect(
      latest.body.pipeline_definitions.map(
        (d: { pipeline_definition_id: string }) => d.pipeline_definition_id,
      ),
    ).toEqual(['sales']);
    const older = await gw.request('GET', '/pipelines', { query: { snapshot_id: snapshotId } });
    expect(older.body).toEqual(answer.body);
    const unknown = await gw.request('GET', '/pipelines', {
      query: { snapshot_id: 'no-such-snapshot' },
    });
    expect(unknown.status).toBe(404);
  });

  it('lists the stages of a definition by order, values as text', async () => {
    const expected = (def: typeof SALES) => ({
      pipeline_definition_id: def.id,
      stages: def.stages.map((s) => ({
        label: s.label,
        id: s.id,
        order: String(s.displayOrder),
        metadata: { is_closed: String(s.isClosed), probability: String(parseFloat(s.probability)) },
      })),
    });
    const answer = await gw.request('GET', '/pipelines/stages', {
      query: { pipeline_definition_id: 'sales' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(expected(SALES));
    expect(answer.body.stages[0]).toEqual({
      label: 'Qualified',
      id: 'qualified',
      order: '0',
      metadata: { is_closed: 'false', probability: '0.2' },
    });
    expect(answer.body.stages[2].metadata).toEqual({ is_closed: 'true', probability: '1' });
    // renewals is in the older snapshot only; a JSON body works on GET as well
    const older = await gw.request('GET', '/pipelines/stages', {
      body: { pipeline_definition_id: 'renewals', snapshot_id: scenario.snapshotId },
    });
    expect(older.body).toEqual(expected(RENEWALS));

    const missing = await gw.request('GET', '/pipelines/stages');
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([
      expect.objectContaining({ field: 'pipeline_definition_id' }),
    ]);
    const unknown = await gw.request('GET', '/pipelines/stages', {
      query: { pipeline_definition_id: 'renewals' },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toMatch(/^Pipeline definition renewals not found in snapshot /);
  });
});

describe('GET /pipelines/metrics', () => {
  const get = (query: Record<string, string | string[]>, body?: unknown) =>
    gw.request('GET', '/pipelines/metrics', { query, body });

  it('leaves out what cannot be computed yet, and answers 409 when it is asked for by name', async () => {
    const answer = await get({ pipeline_id: 'sales', snapshot_id: scenario.snapshotId });
    expect(answer.status).toBe(200);
    expect(answer.body.metrics).toEqual([
      {
        metric_definition: { id: ID.open_opportunities, api_codename: 'open_opportunities' },
        scope: { pipeline: 'sales' },
        metric_value: { value: 6, unit: 'count' },
      },
    ]);
    expect(answer.body.status).toEqual({
      success: true,
      statusCode: 200,
      message: expect.stringMatching(
        /^Metrics found and retrieved; not computed yet: pipeline_value \(the currency is not set .*win_rate \(the period is not set/,
      ),
    });
    const named = await get({ pipeline_id: 'sales', metrics: 'open_opportunities,win_rate' });
    expect(named.status).toBe(409);
    expect(named.body).toEqual({
      metrics: [],
      status: {
        success: false,
        statusCode: 409,
        message: 'Cannot compute win_rate: the period is not set (POST /settings/periods)',
      },
    });
    const series = await gw.request('GET', '/pipelines/timeseries', {
      query: { pipeline_id: 'sales', metric_name: 'open_opportunities', duration: 4 },
    });
    expect(series.status).toBe(409);
    expect(series.body).toEqual({
      series: [],
      status: {
        success: false,
        statusCode: 409,
        message: 'Cannot build a time series: the period is not set (POST /settings/periods)',
      },
    });
  });

  it('computes every metric of the complete, a team and a member pipeline', async () => {
    expect(
      (await gw.request('POST', '/settings/currencies', { body: { currency: 'eur' } })).status,
    ).toBe(200);
    expect(
      (await gw.request('POST', '/settings/periods', { body: { period: 'quarterly' } })).status,
    ).toBe(200);
    await setTargets(scenario, 2026, QUARTERLY_TARGETS);
    const ada = scenario.memberOf.get('101')!;
    for (const pipelineId of [
      'sales',
      'sales.team.east',
      `sales.member.${ada}`,
      'renewals',
      `renewals.member.${ada}`,
    ]) {
      const scope = scopeOf(MAIN_FIXTURE, scenario, pipelineId);
      const expected = expectedMetrics(
        MAIN_FIXTURE,
        scope,
        QUARTER,
        targetSum(ownersIn(MAIN_FIXTURE, scope), QUARTERLY_TARGETS, 1),
      );
      const answer = await get({ pipeline_id: pipelineId, snapshot_id: scenario.snapshotId });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        metrics: expectedEntries(pipelineId, expected, 'EUR'),
        status: { message: 'Metrics found and retrieved', success: true, statusCode: 200 },
      });
    }
    // a few values worked out by hand, so the independent computation is checked too
    const complete = await get({ pipeline_id: 'sales', snapshot_id: scenario.snapshotId });
    const value = (name: string) =>
      complete.body.metrics.find(
        (m: { metric_definition: { api_codename: string } }) =>
          m.metric_definition.api_codename === name,
      ).metric_value.value;
    expect(value('pipeline_value')).toBe(9600.5); // 1000 + 2500.5 + 0 + 800 + 5000 + 300
    expect(value('weighted_pipeline_value')).toBe(5240.3);
    expect(value('win_rate')).toBe(66.67); // 6 won, 3 lost (one in a closed 0.3 stage) in Q2
    expect(value('average_deal_size')).toBe(2583.33); // 15500 / 6
    expect(value('quota_attainment')).toBe(55.36); // 15500 / (20000 + 8000)

    // Alan has no targets: the west team's quota and coverage are left out and named
    const west = await get({ pipeline_id: 'sales.team.west', snapshot_id: scenario.snapshotId });
    expect(
      west.body.metrics.map(
        (m: { metric_definition: { api_codename: string } }) => m.metric_definition.api_codename,
      ),
    ).toEqual(METRIC_NAMES.slice(0, 6));
    expect(west.body.status.message).toBe(
      "Metrics found and retrieved; not computed yet: quota_attainment (no targets are set for the pipeline's members for 2026 Q2), " +
        "pipeline_coverage (no targets are set for the pipeline's members for 2026 Q2)",
    );
  });

  it('takes the names as a comma list, repeated, or a JSON array, in the order asked', async () => {
    const want = ['win_rate', 'pipeline_value', 'open_opportunities'];
    const names = (answer: {
      body: { metrics: Array<{ metric_definition: { api_codename: string } }> };
    }) => answer.body.metrics.map((m) => m.metric_definition.api_codename);
    expect(names(await get({ pipeline_id: 'sales', metrics: want.join(',') }))).toEqual(want);
    expect(names(await get({ pipeline_id: 'sales', metrics: want }))).toEqual(want);
    expect(
      names(
        await gw.request('GET', '/pipelines/metrics', {
          body: { pipeline_id: 'sales', metrics: want },
        }),
      ),
    ).toEqual(want);
  });

  it('answers 400 naming the allowed metrics, and 404 for an unknown pipeline', async () => {
    const bad = await get({ pipeline_id: 'sales', metrics: 'win_rate,revenue' });
    expect(bad.status).toBe(400);
    expect(bad.body.metrics).toEqual([]);
    expect(bad.body.status).toMatchObject({
      success: false,
      statusCode: 400,
      message: `Unknown metric "revenue"; allowed: ${METRIC_NAMES.join(', ')}`,
    });
    const unknown = await get({ pipeline_id: 'sales.member.nobody' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      metrics: [],
      status: {
        success: false,
        statusCode: 404,
        message: expect.stringMatching(/^Pipeline sales.member.nobody not found/),
      },
    });
    const missing = await get({});
    expect(missing.status).toBe(400);
    expect(missing.body.status.errors).toEqual([expect.objectContaining({ field: 'pipeline_id' })]);
  });
});

describe('GET /pipelines/timeseries', () => {
  it('answers one point per period ending with the current one, in the three input forms', async () => {
    const forms: RequestOptions[] = [
      { query: { pipeline_id: 'sales', metric_name: 'pipeline_value', duration: 6 } },
      {
        query: {
          pipeline_id: 'sales',
          'metrics[metric_name]': 'pipeline_value',
          'metrics[duration]': 6,
        },
      },
      { body: { pipeline_id: 'sales', metrics: { metric_name: 'pipeline_value', duration: 6 } } },
    ];
    const answers = [];
    for (const form of forms) answers.push(await gw.request('GET', '/pipelines/timeseries', form));
    for (const answer of answers) expect(answer.body).toEqual(answers[0].body);
    const body = answers[0].body;
    expect(answers[0].status).toBe(200);
    expect(body).toMatchObject({
      pipeline_id: 'sales',
      metric_name: 'pipeline_value',
      unit: 'EUR',
      period: 'quarterly',
      status: { message: 'Time series found and retrieved', success: true, statusCode: 200 },
    });
    expect(body.series).toHaveLength(6);
    // contiguous quarters, oldest first, the last one containing today
    const today = new Date().toISOString().slice(0, 10);
    expect(body.series[5].start <= today && today <= body.series[5].end).toBe(true);
    for (let i = 1; i < 6; i += 1) {
      const dayAfter = new Date(Date.parse(`${body.series[i - 1].end}T00:00:00Z`) + 86_400_000)
        .toISOString()
        .slice(0, 10);
      expect(body.series[i].start).toBe(dayAfter);
    }
    // each point: the last snapshot of the quarter (here both are in 2026 Q2, the later one wins)
    const salesOnly = {
      ...MAIN_FIXTURE,
      definitions: [SALES],
      deals: MAIN_DEALS.filter((d) => d.pipeline === 'sales'),
    };
    const expected = body.series.map((p: { start: string; end: string }) =>
      p.start <= '2026-05-21' && '2026-05-21' <= p.end
        ? expectedMetrics(salesOnly, { definitionId: 'sales', owners: null }, p).pipeline_value
        : null,
    );
    expect(body.series.map((p: { value: number | null }) => p.value)).toEqual(expected);
    expect(body.series[0]).toEqual({
      period: expect.stringMatching(/^Q[1-4]$/),
      year: expect.any(Number),
      start: expect.any(String),
      end: expect.any(String),
      value: expected[0],
    });
  });

  it('rejects a missing or out-of-range duration and an unknown metric', async () => {
    const noDuration = await gw.request('GET', '/pipelines/timeseries', {
      query: { pipeline_id: 'sales', metric_name: 'win_rate' },
    });
    expect(noDuration.status).toBe(400);
    expect(noDuration.body.series).toEqual([]);
    const tooLong = await gw.request('GET', '/pipelines/timeseries', {
      query: { pipeline_id: 'sales', metric_name: 'win_rate', duration: 105 },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.status.errors).toEqual([expect.objectContaining({ field: 'duration' })]);
    const unknown = await gw.request('GET', '/pipelines/timeseries', {
      body: { pipeline_id: 'sales', metrics: { metric_name: 'revenue', duration: 2 } },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.status.message).toContain('allowed: pipeline_value');
    const noPipeline = await gw.request('GET', '/pipelines/timeseries', {
      query: { pipeline_id: 'nope', metric_name: 'win_rate', duration: 2 },
    });
    expect(noPipeline.status).toBe(404);
  });

  it('is readable by every role', async () => {
    const member = await gw.tokenFor(scenario.memberOf.get('103')!);
    expect((await gw.request('GET', '/pipelines', { token: member })).status).toBe(200);
    const answer = await gw.request('GET', '/pipelines/metrics', {
      token: member,
      query: { pipeline_id: 'sales', metrics: 'open_opportunities' },
    });
    expect(answer.status).toBe(200);
    expect((await gw.request('GET', '/pipelines', { token: null })).status).toBe(401);
  });
});
