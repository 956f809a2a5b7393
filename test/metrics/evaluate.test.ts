import { METRIC_CATALOGUE, metricDefinition } from '../../src/domain/metric-catalogue';
import { MetricEnvironment, evaluateMetric } from '../../src/domain/evaluate-metric';
import {
  FactsOpportunity,
  PipelineFacts,
  PipelineFactsAccumulator,
} from '../../src/domain/pipeline-facts';
import {
  metricsStatusMessage,
  parseMetricNames,
  selectMetrics,
} from '../../src/services/metrics/select-metrics';

const SNAPSHOT_AT = new Date('2026-05-20T10:00:00Z'); // Q2, m5, w20 (20 May = day 139, 139/7 → w20)

function opp(
  fields: Partial<FactsOpportunity> & Pick<FactsOpportunity, 'outcome'>,
): FactsOpportunity {
  return { stageId: 's', amount: 0, memberId: 'alice', createdAt: null, closedAt: null, ...fields };
}

function factsOf(rows: Array<[FactsOpportunity, number]>, memberIds?: string[]): PipelineFacts {
  const acc = new PipelineFactsAccumulator(2026);
  for (const [o, p] of rows) acc.add(o, p);
  const result = acc.result();
  return {
    snapshotId: 'snap',
    pipelineId: 'def',
    definitionId: 'def',
    kind: 'complete',
    teamId: null,
    memberId: null,
    snapshotAt: SNAPSHOT_AT,
    year: 2026,
    ...result,
    memberIds: memberIds ?? result.memberIds,
  };
}

const rows: Array<[FactsOpportunity, number]> = [
  // open, closing in May (m5, Q2, w20: 14-20 May)
  [opp({ outcome: 'open', amount: 1000, closedAt: new Date('2026-05-15T00:00:00Z') }), 0.2],
  // open, closing in June (Q2 only), owned by bob
  [
    opp({
      outcome: 'open',
      amount: 500,
      memberId: 'bob',
      closedAt: new Date('2026-06-10T00:00:00Z'),
    }),
    0.6,
  ],
  // open without a close date, no amount
  [opp({ outcome: 'open', amount: 0 }), 0.4],
  // won in May after 10 days, and in April after 30 days
  [
    opp({
      outcome: 'won',
      amount: 3000,
      createdAt: new Date('2026-05-05T00:00:00Z'),
      closedAt: new Date('2026-05-15T00:00:00Z'),
    }),
    1,
  ],
  [
    opp({
      outcome: 'won',
      amount: 2000,
      createdAt: new Date('2026-03-15T00:00:00Z'),
      closedAt: new Date('2026-04-14T00:00:00Z'),
    }),
    1,
  ],
  // won in the previous year: in no period of 2026
  [opp({ outcome: 'won', amount: 9999, closedAt: new Date('2025-12-31T00:00:00Z') }), 1],
  // lost in May, lost in April
  [opp({ outcome: 'lost', amount: 700, closedAt: new Date('2026-05-02T00:00:00Z') }), 0],
  [opp({ outcome: 'lost', amount: 100, closedAt: new Date('2026-04-01T00:00:00Z') }), 0.1],
];

const ALL_SET: MetricEnvironment = {
  currency: 'EUR',
  period: 'quarterly',
  targets: [
    { memberId: 'alice', year: 2026, period: 'quarterly', amounts: [1, 8000, 1, 1] },
    { memberId: 'bob', year: 2026, period: 'quarterly', amounts: [1, 2000, 1, 1] },
    // not a member of the pipeline: ignored
    { memberId: 'carol', year: 2026, period: 'quarterly', amounts: [1, 50000, 1, 1] },
  ],
};

function valueOf(
  name: Parameters<typeof metricDefinition>[0],
  facts: PipelineFacts,
  env: MetricEnvironment,
) {
  const outcome = evaluateMetric(metricDefinition(name), facts, env);
  if (outcome.kind !== 'value')
    throw new Error(`expected a value for ${name}, got: ${outcome.reason}`);
  return [outcome.value, outcome.unit];
}

describe('metric evaluation on precomputed facts', () => {
  const facts = factsOf(rows);

  it('sums open opportunities whatever their close date', () => {
    expect(valueOf('pipeline_value', facts, ALL_SET)).toEqual([1500, 'EUR']);
    expect(valueOf('weighted_pipeline_value', facts, ALL_SET)).toEqual([
      1000 * 0.2 + 500 * 0.6,
      'EUR',
    ]);
    expect(valueOf('open_opportunities', facts, ALL_SET)).toEqual([3, 'count']);
  });

  it('computes the period metrics over the quarter containing the snapshot', () => {
    // Q2: won 3000 (10 days) + 2000 (30 days), lost 2
    expect(valueOf('win_rate', facts, ALL_SET)).toEqual([50, 'percentage']);
    expect(valueOf('average_deal_size', facts, ALL_SET)).toEqual([2500, 'EUR']);
    expect(valueOf('average_sales_cycle', facts, ALL_SET)).toEqual([20, 'days']);
    // targets Q2: 8000 + 2000 = 10000
    expect(valueOf('quota_attainment', facts, ALL_SET)).toEqual([50, 'percentage']);
    // open closing in Q2: 1500; remaining 10000 - 5000
    expect(valueOf('pipeline_coverage', facts, ALL_SET)).toEqual([30, 'percentage']);
  });

  it('follows the configured unit: the month, then the week, of the snapshot', () => {
    const monthly: MetricEnvironment = {
      ...ALL_SET,
      period: 'monthly',
      targets: [
        {
          memberId: 'alice',
          year: 2026,
          period: 'monthly',
          amounts: [0, 0, 0, 0, 6000, 0, 0, 0, 0, 0, 0, 0],
        },
      ],
    };
    // May: won 3000 (10 days), lost 1
    expect(valueOf('win_rate', facts, monthly)).toEqual([50, 'percentage']);
    expect(valueOf('average_deal_size', facts, monthly)).toEqual([3000, 'EUR']);
    expect(valueOf('average_sales_cycle', facts, monthly)).toEqual([10, 'days']);
    expect(valueOf('quota_attainment', facts, monthly)).toEqual([50, 'percentage']);
    // open closing in May: 1000, remaining 6000 - 3000
    expect(valueOf('pipeline_coverage', facts, monthly)).toEqual([33.33, 'percentage']);

    // w20 is 14-20 May: the May-15 won deal and the May-15 open deal, no loss
    const weekly: MetricEnvironment = { ...ALL_SET, period: 'weekly', targets: [] };
    expect(valueOf('win_rate', facts, weekly)).toEqual([100, 'percentage']);
    expect(valueOf('average_deal_size', facts, weekly)).toEqual([3000, 'EUR']);
  });

  it('answers null when the formula divides by zero', () => {
    const none = factsOf([[opp({ outcome: 'open', amount: 10 }), 0.5]], ['alice']);
    expect(valueOf('win_rate', none, ALL_SET)).toEqual([null, 'percentage']);
    expect(valueOf('average_deal_size', none, ALL_SET)).toEqual([null, 'EUR']);
    expect(valueOf('average_sales_cycle', none, ALL_SET)).toEqual([null, 'days']);
    const zeroTargets: MetricEnvironment = {
      ...ALL_SET,
      targets: [{ memberId: 'alice', year: 2026, period: 'quarterly', amounts: [0, 0, 0, 0] }],
    };
    expect(valueOf('quota_attainment', none, zeroTargets)).toEqual([null, 'percentage']);
    expect(valueOf('pipeline_coverage', none, zeroTargets)).toEqual([null, 'percentage']);
  });

  it('rounds percentages to two decimals', () => {
    const thirds = factsOf([
      [opp({ outcome: 'won', closedAt: new Date('2026-04-02T00:00:00Z') }), 1],
      [opp({ outcome: 'lost', closedAt: new Date('2026-04-02T00:00:00Z') }), 0],
      [opp({ outcome: 'lost', closedAt: new Date('2026-04-03T00:00:00Z') }), 0],
    ]);
    expect(valueOf('win_rate', thirds, ALL_SET)).toEqual([33.33, 'percentage']);
  });
});

describe('metric rules', () => {
  const facts = factsOf(rows);

  it('leaves out what cannot be computed yet and names it in the status message', () => {
    const env: MetricEnvironment = { currency: null, period: null, targets: [] };
    const selection = selectMetrics(facts, env);
    expect(selection.values.map((v) => v.definition.apiCodename)).toEqual(['open_opportunities']);
    expect(selection.omitted.map((o) => o.definition.apiCodename)).toEqual([
      'pipeline_value',
      'weighted_pipeline_value',
      'win_rate',
      'average_deal_size',
      'average_sales_cycle',
      'quota_attainment',
      'pipeline_coverage',
    ]);
    expect(metricsStatusMessage(selection)).toContain(
      'pipeline_value (the currency is not set (POST /settings/currencies))',
    );
    expect(metricsStatusMessage(selection)).toContain(
      'win_rate (the period is not set (POST /settings/periods))',
    );
  });

  it('leaves out quota and coverage when none of the members has targets for the year', () => {
    const selection = selectMetrics(facts, {
      ...ALL_SET,
      targets: [{ memberId: 'alice', year: 2025, period: 'quarterly', amounts: [1, 1, 1, 1] }],
    });
    expect(selection.values).toHaveLength(6);
    expect(selection.omitted.map((o) => o.reason)).toEqual([
      "no targets are set for the pipeline's members for 2026 Q2",
      "no targets are set for the pipeline's members for 2026 Q2",
    ]);
    expect(metricsStatusMessage(selectMetrics(facts, ALL_SET))).toBe('Metrics found and retrieved');
  });

  it('answers 409 for a metric asked for by name that cannot be computed', () => {
    expect(() =>
      selectMetrics(facts, { ...ALL_SET, currency: null }, [
        'open_opportunities',
        'pipeline_value',
      ]),
    ).toThrow(
      expect.objectContaining({
        status: 409,
        message:
          'Cannot compute pipeline_value: the currency is not set (POST /settings/currencies)',
      }),
    );
    expect(
      selectMetrics(facts, { ...ALL_SET, currency: null }, ['open_opportunities']).values,
    ).toHaveLength(1);
  });

  it('parses names from lists and comma-joined values and rejects unknown ones with the allowed list', () => {
    expect(parseMetricNames(undefined)).toBeUndefined();
    expect(parseMetricNames([''])).toBeUndefined();
    expect(parseMetricNames(['win_rate,pipeline_value', 'win_rate'])).toEqual([
      'win_rate',
      'pipeline_value',
    ]);
    expect(() => parseMetricNames(['win_rate', 'revenue'])).toThrow(
      expect.objectContaining({
        status: 400,
        message: `Unknown metric "revenue"; allowed: ${METRIC_CATALOGUE.map((d) => d.apiCodename).join(', ')}`,
      }),
    );
  });

  it('keeps stable, distinct UUIDs for the catalogue', () => {
    const ids = METRIC_CATALOGUE.map((d) => d.id);
    expect(new Set(ids).size).toBe(8);
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(metricDefinition('win_rate').id).toBe('ef467216-5591-4463-a2d5-bc1d91ee793f');
  });
});
