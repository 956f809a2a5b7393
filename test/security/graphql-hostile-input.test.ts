import { MAIN_FIXTURE, toImportBody } from '../pipelines/fixtures/crm-fixture';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { countCommands } from './write-counter';

/** `levels` arrays, one inside the other, around 1, as JSON text: `[[[1]]]` is 3 levels. */
const nested = (levels: number): string => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

describe('GraphQL input errors are 400s, never internal', () => {
  let gw: TestGateway;
  const logged: string[] = [];
  beforeAll(async () => {
    gw = await startGateway({
      env: { LOG_LEVEL: 'warn' },
      logStream: { write: (line: string) => logged.push(line) },
    });
  });
  afterAll(async () => {
    await gw.stop();
  });
  beforeEach(() => {
    logged.length = 0;
  });

  /** POSTs a query with its variables given as JSON text (JSON.stringify would overflow on deep ones). */
  const post = (query: string, variables: string) =>
    gw.request('POST', '/graphql', {
      body: `{"query":${JSON.stringify(query)},"variables":${variables}}`,
      headers: { 'content-type': 'application/json' },
    });

  /** Sends; expects a 400 with `code`, no data, no database command at all and nothing logged. */
  async function refused(
    code: string,
    query: string,
    variables?: Record<string, unknown> | string,
  ) {
    const { result, all } = await countCommands(gw, () =>
      typeof variables === 'string' ? post(query, variables) : gw.graphql(query, variables),
    );
    expect({ status: result.status, all, data: result.body.data }).toEqual({
      status: 400,
      all: 0,
      data: undefined,
    });
    expect(result.body.errors).toHaveLength(1);
    expect(result.body.errors[0].extensions.code).toBe(code);
    expect(logged).toEqual([]);
    return result.body.errors[0] as { message: string; extensions: Record<string, unknown> };
  }

  it('an explicit null through a defaulted nullable variable overrides the default: 400 naming the argument', async () => {
    const snapshots = 'query($n: Int = 100) { snapshots(first: $n) { edges { cursor } } }';
    expect((await refused('BAD_USER_INPUT', snapshots, { n: null })).message).toBe(
      'Argument "first" of non-null type "Int!" must not be null.',
    );
    // Every argument with a default is non-null, so the rule is the same for each of them.
    const members =
      'query($n: Int = 5) { teams { members(first: $n) { edges { cursor } } } members(first: $n) { edges { cursor } } }';
    expect((await refused('BAD_USER_INPUT', members, { n: null })).message).toMatch(
      /^Argument "first" of non-null type "Int!" must not be null\./,
    );
    const force =
      'mutation($f: Boolean = false) { importCrmData(input: { deals: [], force: $f }) { snapshotId } }';
    expect((await refused('BAD_USER_INPUT', force, { f: null })).message).toMatch(
      /^Argument "input" has invalid value/,
    );
    const skip = 'query($s: Boolean = false) { viewer { role @skip(if: $s) } }';
    expect((await refused('BAD_USER_INPUT', skip, { s: null })).message).toMatch(
      /^Argument "if" of non-null type "Boolean!" must not be null\./,
    );
    // Left out, the variable takes its default; a value is used as sent.
    for (const variables of [undefined, { n: 2 }]) {
      const ok = await gw.graphql(snapshots, variables);
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ data: { snapshots: { edges: [] } } });
    }
  });

  it('variables of the wrong type or shape are BAD_USER_INPUT 400s', async () => {
    await refused(
      'BAD_USER_INPUT',
      'query($n: Int) { snapshots(first: $n) { edges { cursor } } }',
      {
        n: 2.5,
      },
    );
    await refused(
      'BAD_USER_INPUT',
      'query($n: Int!) { snapshots(first: $n) { edges { cursor } } }',
    );
    await refused(
      'BAD_USER_INPUT',
      'mutation($input: CreateTeamInput!) { createTeam(input: $input) { id } }',
      { input: { id: 'x', name: 'X', extra: 1 } },
    );
    await refused('BAD_USER_INPUT', 'query($id: ID!) { member(id: $id) { id } }', {
      id: { $gt: '' },
    });
  });

  it('variables nested deeper than a REST body may be: 400 before anything walks them, at any depth', async () => {
    const importing =
      'mutation($deals: JSON!) { importCrmData(input: { deals: $deals }) { snapshotId } }';
    for (const levels of [32, 10_000, 200_000]) {
      const error = await refused('BAD_USER_INPUT', importing, `{"deals":${nested(levels)}}`);
      expect(error.message).toBe('Variable "$deals" is nested deeper than the limit of 32 levels');
      expect(error.extensions.errors).toEqual([
        { field: 'deals', message: 'expected at most 32 levels of nesting, got deeper input' },
      ]);
    }
    // A variable the operation does not declare is refused alike: no variable is walked unchecked.
    const unused = await refused(
      'BAD_USER_INPUT',
      '{ viewer { role } }',
      `{"pad":{"a":${nested(100_000)}}}`,
    );
    expect(unused.message).toBe('Variable "$pad" is nested deeper than the limit of 32 levels');
    // As in a REST body, the variables object is level 0: a variable may hold 31 levels, and
    // goes on to the import's own checks.
    const deepest = await post(importing, `{"deals":${nested(31)}}`);
    expect(deepest.status).toBe(400);
    expect(deepest.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(deepest.body.errors[0].message).not.toMatch(/nested deeper/);
    expect(logged).toEqual([]);
  });
});

describe('metric values that are not finite', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
    expect(
      (await gw.request('POST', '/settings/currencies', { body: { currency: 'eur' } })).status,
    ).toBe(200);
    expect(
      (await gw.request('POST', '/settings/periods', { body: { period: 'quarterly' } })).status,
    ).toBe(200);
    // Two open deals of 1.7e308: each amount is finite, their sum would not be. The import
    // refuses such amounts (docs/importing.md), so no sum it makes can overflow...
    const fixture = {
      ...MAIN_FIXTURE,
      deals: MAIN_FIXTURE.deals.map((deal) =>
        deal.id === '1001' || deal.id === '1002' ? { ...deal, amount: '1.7e308' } : deal,
      ),
    };
    const imported = await gw.request('POST', '/crm/imports', {
      body: toImportBody(fixture, '2026-05-20T12:00:00Z'),
    });
    expect(imported.status).toBe(200);
    expect(imported.body.skipped.map((s: { id: string }) => s.id)).toEqual(
      expect.arrayContaining(['1001', '1002']),
    );
    // ...but facts stored by an earlier version, or written by another tool, may hold one: the
    // reads must stay safe whatever is stored.
    await gw.connection
      .collection('pipeline_facts')
      .updateMany({ pipelineId: 'sales' }, { $set: { openAmount: Infinity } });
  });
  afterAll(async () => {
    await gw.stop();
  });

  it('are null in GraphQL as in REST, and the pipeline stays readable', async () => {
    const rest = await gw.request('GET', '/pipelines/metrics', { query: { pipeline_id: 'sales' } });
    expect(rest.status).toBe(200);
    const restValues = Object.fromEntries(
      rest.body.metrics.map((m: any) => [m.metric_definition.api_codename, m.metric_value.value]),
    );
    expect(restValues.pipeline_value).toBeNull();

    const gql = await gw.graphql(
      '{ pipeline(id: "sales") { metrics { definition { apiCodename } value } timeseries(metric: "pipeline_value", duration: 2) { points { value } } } }',
    );
    expect(gql.status).toBe(200);
    expect(gql.body.errors).toBeUndefined();
    const gqlValues = Object.fromEntries(
      gql.body.data.pipeline.metrics.map((m: any) => [m.definition.apiCodename, m.value]),
    );
    expect(gqlValues).toEqual(restValues);
    expect(gql.body.data.pipeline.timeseries.points.at(-1)).toEqual({ value: null });
    // The dashboard reads every pipeline of the snapshot, that one included.
    const dashboard = await gw.graphql(
      '{ snapshot { definitions { pipelines { id metrics { value } } } } }',
    );
    expect(dashboard.status).toBe(200);
    expect(dashboard.body.errors).toBeUndefined();
  });
});
