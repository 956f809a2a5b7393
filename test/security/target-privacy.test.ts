import { MAIN_FIXTURE, toImportBody } from '../pipelines/fixtures/crm-fixture';
import { startGateway, type TestGateway } from '../helpers/gateway';

/**
 * Targets are private (admin, the member's own manager, the member), and so is every value derived
 * from them: quota_attainment and pipeline_coverage divide by the targets of a pipeline's members,
 * so won amount ÷ attainment gives the target back. Each role is tried on each path that shows a
 * metric: REST metrics (unfiltered and named), REST time series, GraphQL metrics (unfiltered and
 * named), GraphQL time series.
 */
let gw: TestGateway;
const TARGET_METRICS = ['quota_attainment', 'pipeline_coverage'];
const id = { ada: '', grace: '', alan: '', mia: '' };
const token: Record<'admin' | 'ada' | 'alan' | 'mia', string | undefined> = {
  admin: undefined,
  ada: '',
  alan: '',
  mia: '',
};

async function ok(method: string, path: string, body?: unknown): Promise<any> {
  const res = await gw.request(method, path, { body });
  if (res.status !== 200 && res.status !== 201)
    throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

const member = (who: 'ada' | 'grace' | 'alan') => `sales.member.${id[who]}`;

beforeAll(async () => {
  gw = await startGateway();
  await ok('POST', '/settings/currencies', { currency: 'eur' });
  await ok('POST', '/settings/periods', { period: 'quarterly' });
  await ok('POST', '/crm/imports', toImportBody(MAIN_FIXTURE, '2026-05-20T12:00:00Z'));
  const members: Array<{ member_id: string; email: string }> = (await ok('GET', '/teams/members'))
    .members;
  const byEmail = (email: string) => {
    const found = members.find((m) => m.email === email);
    if (!found) throw new Error(`no member ${email} in ${JSON.stringify(members)}`);
    return found.member_id;
  };
  id.ada = byEmail('ada@example.com');
  id.grace = byEmail('grace@example.com');
  id.alan = byEmail('alan@example.com');
  const mia = {
    firstname: 'Mia',
    lastname: 'Manager',
    email: 'mia@example.com',
    role: 'manager',
    memberOf: { team_id: 'east' },
  };
  id.mia = (await ok('POST', '/teams/members', mia)).member.member_id;
  for (const who of ['ada', 'grace', 'alan'] as const) {
    await ok('POST', `/teams/members/${id[who]}/targets`, {
      year: 2026,
      targets: [9000, 11000, 13000, 17000],
    });
  }
  token.ada = await gw.tokenFor(id.ada);
  token.alan = await gw.tokenFor(id.alan);
  token.mia = await gw.tokenFor(id.mia);
});
afterAll(async () => gw?.stop());

/** Who may see target-derived metrics of which pipeline: the rule applied by hand. */
function visibleTo(caller: keyof typeof token, pipelineId: string): boolean {
  if (caller === 'admin') return true;
  const east = ['sales.team.east', member('ada'), member('grace')];
  if (caller === 'mia') return east.includes(pipelineId);
  if (caller === 'ada') return pipelineId === member('ada');
  // Alan is the only member of the west team's pipeline: its targets are his own.
  return pipelineId === member('alan') || pipelineId === 'sales.team.west';
}

const PIPELINES = () => [
  'sales',
  'sales.team.east',
  'sales.team.west',
  member('ada'),
  member('grace'),
  member('alan'),
];
const CALLERS = ['admin', 'mia', 'ada', 'alan'] as const;

describe('target-derived metrics follow the targets rule', () => {
  it('the fixture has the pipelines the matrix names, each with computable target metrics for the admin', async () => {
    const listed = JSON.stringify(await ok('GET', '/pipelines'));
    for (const pipeline of PIPELINES()) expect(listed).toContain(`"${pipeline}"`);
    for (const pipeline of PIPELINES()) {
      const res = await gw.request('GET', '/pipelines/metrics', {
        query: { pipeline_id: pipeline, metrics: TARGET_METRICS.join(',') },
      });
      expect(res.status).toBe(200);
      expect(res.body.metrics.map((m: any) => m.metric_definition.api_codename)).toEqual(
        TARGET_METRICS,
      );
    }
  });

  it.each(CALLERS)(
    'REST /pipelines/metrics without a filter: %s sees them only where the rule allows, and is told',
    async (caller) => {
      for (const pipeline of PIPELINES()) {
        const res = await gw.request('GET', '/pipelines/metrics', {
          query: { pipeline_id: pipeline },
          token: token[caller],
        });
        expect(res.status).toBe(200);
        const names: string[] = res.body.metrics.map((m: any) => m.metric_definition.api_codename);
        expect(names).toContain('win_rate');
        if (visibleTo(caller, pipeline)) {
          expect(names).toEqual(expect.arrayContaining(TARGET_METRICS));
          expect(res.body.status.message).toBe('Metrics found and retrieved');
        } else {
          expect(names.filter((n) => TARGET_METRICS.includes(n))).toEqual([]);
          expect(res.body.status.message).toContain(
            'not available to this caller: quota_attainment, pipeline_coverage',
          );
        }
      }
    },
  );

  it.each(CALLERS)(
    'REST /pipelines/metrics by name: %s gets 403 where the rule forbids',
    async (caller) => {
      for (const pipeline of PIPELINES()) {
        for (const name of TARGET_METRICS) {
          const res = await gw.request('GET', '/pipelines/metrics', {
            query: { pipeline_id: pipeline, metrics: name },
            token: token[caller],
          });
          if (visibleTo(caller, pipeline)) {
            expect(res.status).toBe(200);
            expect(res.body.metrics[0].metric_value.value).toEqual(expect.any(Number));
          } else {
            expect(res.status).toBe(403);
            expect(res.body.status.message).toContain(`${name} is not available to this caller`);
            expect(res.body.metrics).toEqual([]);
          }
        }
        // Asked together with a metric anyone may see: still 403, not a partial answer.
        const mixed = await gw.request('GET', '/pipelines/metrics', {
          query: { pipeline_id: pipeline, metrics: 'win_rate,quota_attainment' },
          token: token[caller],
        });
        expect(mixed.status).toBe(visibleTo(caller, pipeline) ? 200 : 403);
      }
    },
  );

  it.each(CALLERS)(
    'REST /pipelines/timeseries: %s gets 403 where the rule forbids',
    async (caller) => {
      for (const pipeline of PIPELINES()) {
        for (const name of TARGET_METRICS) {
          const res = await gw.request('GET', '/pipelines/timeseries', {
            query: { pipeline_id: pipeline, metric_name: name, duration: 8 },
            token: token[caller],
          });
          expect(res.status).toBe(visibleTo(caller, pipeline) ? 200 : 403);
          if (res.status === 403) expect(res.body.series).toEqual([]);
        }
        const other = await gw.request('GET', '/pipelines/timeseries', {
          query: { pipeline_id: pipeline, metric_name: 'win_rate', duration: 8 },
          token: token[caller],
        });
        expect(other.status).toBe(200);
      }
    },
  );

  it.each(CALLERS)(
    'GraphQL pipeline.metrics and timeseries: %s gets them, or FORBIDDEN / left out',
    async (caller) => {
      for (const pipeline of PIPELINES()) {
        const all = await gw.graphql<any>(
          'query($id: ID!) { pipeline(id: $id) { metrics { definition { apiCodename } value } } }',
          { id: pipeline },
          token[caller],
        );
        expect(all.body.errors).toBeUndefined();
        const names: string[] = all.body.data.pipeline.metrics.map(
          (m: any) => m.definition.apiCodename,
        );
        if (visibleTo(caller, pipeline))
          expect(names).toEqual(expect.arrayContaining(TARGET_METRICS));
        else expect(names.filter((n) => TARGET_METRICS.includes(n))).toEqual([]);

        const named = await gw.graphql<any>(
          'query($id: ID!) { pipeline(id: $id) { metrics(names: ["pipeline_coverage"]) { value } } }',
          { id: pipeline },
          token[caller],
        );
        const series = await gw.graphql<any>(
          'query($id: ID!) { pipeline(id: $id) { timeseries(metric: "quota_attainment", duration: 8) { points { value } } } }',
          { id: pipeline },
          token[caller],
        );
        for (const res of [named, series]) {
          if (visibleTo(caller, pipeline)) {
            expect(res.body.errors).toBeUndefined();
          } else {
            expect(res.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
            expect(res.body.data).toBeNull();
          }
        }
      }
    },
  );

  it('the explorer dashboard shows a member target-derived values of pipelines summing their own targets only', async () => {
    const res = await gw.graphql<any>(
      '{ snapshot { definitions { pipelines { id metrics { definition { apiCodename } } } } } }',
      undefined,
      token.ada,
    );
    expect(res.body.errors).toBeUndefined();
    const shown = res.body.data.snapshot.definitions
      .flatMap((d: any) => d.pipelines)
      .filter((p: any) =>
        p.metrics.some((m: any) => TARGET_METRICS.includes(m.definition.apiCodename)),
      )
      .map((p: any) => p.id);
    // In renewals, Ada owns the only deals of the east team: that team pipeline sums her targets alone.
    expect(shown.sort()).toEqual(
      [member('ada'), `renewals.member.${id.ada}`, 'renewals.team.east'].sort(),
    );
  });

  it('follows team changes at once: a manager loses the team pipeline when a member leaves the team', async () => {
    const named = () =>
      gw.request('GET', '/pipelines/metrics', {
        query: { pipeline_id: 'sales.team.east', metrics: 'quota_attainment' },
        token: token.mia,
      });
    expect((await named()).status).toBe(200);
    await ok('POST', `/teams/members/${id.grace}`, { team_id: 'west' });
    try {
      // Grace's deals still count in the east pipeline of this snapshot, but Mia no longer manages her.
      expect((await named()).status).toBe(403);
      const own = await gw.request('GET', '/pipelines/metrics', {
        query: { pipeline_id: member('ada'), metrics: 'quota_attainment' },
        token: token.mia,
      });
      expect(own.status).toBe(200);
    } finally {
      await ok('POST', `/teams/members/${id.grace}`, { team_id: 'east' });
    }
    expect((await named()).status).toBe(200);
  });
});

describe('kept answers are the ones computed', () => {
  const FILTERS = [
    undefined,
    'quota_attainment',
    'win_rate,pipeline_coverage',
    'win_rate',
    'no_such_metric',
  ];
  const ask = (caller: (typeof CALLERS)[number], pipeline: string, metrics: string | undefined) =>
    gw.request('GET', '/pipelines/metrics', {
      query: { pipeline_id: pipeline, ...(metrics ? { metrics } : {}) },
      token: token[caller],
    });

  it('for every caller, pipeline and filter, errors included', async () => {
    const requests = CALLERS.flatMap((caller) =>
      [...PIPELINES(), 'no.such.pipeline'].flatMap((pipeline) =>
        FILTERS.map((filter) => [caller, pipeline, filter] as const),
      ),
    );
    const round = async () => {
      const answers = [];
      for (const [caller, pipeline, filter] of requests)
        answers.push(await ask(caller, pipeline, filter));
      return answers.map((res, i) => ({
        request: requests[i],
        status: res.status,
        body: res.body,
      }));
    };
    // A write first: nothing kept, so the first round computes every answer.
    await ok('POST', '/settings/currencies', { currency: 'eur' });
    const computed = await round();
    expect(new Set(computed.map((answer) => answer.status))).toEqual(new Set([200, 400, 403, 404]));
    // The 200s now come kept, the errors are worked out again: the same either way.
    expect(await round()).toEqual(computed);
    // A write drops every kept answer: computed again, the same.
    await ok('POST', '/settings/currencies', { currency: 'eur' });
    expect(await round()).toEqual(computed);
  });
});
