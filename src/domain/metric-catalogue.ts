/**
 * The metric catalogue of the REST contract. Ids are fixed UUIDs: clients may store them, so they
 * never change between releases or databases.
 */

/** How a metric's unit is derived: a currency metric takes the configured currency code. */
export type MetricUnitKind = 'currency' | 'count' | 'percentage' | 'days';

/** What a metric needs before it can be computed (a missing one makes it "not computable yet"). */
export interface MetricRequirements {
  currency: boolean;
  period: boolean;
  targets: boolean;
}

export interface MetricDefinition {
  id: string;
  apiCodename: MetricName;
  unitKind: MetricUnitKind;
  requires: MetricRequirements;
  /** One line, for the GraphQL description and docs/metrics.md. */
  description: string;
}

export const METRIC_NAMES = [
  'pipeline_value',
  'weighted_pipeline_value',
  'open_opportunities',
  'win_rate',
  'average_deal_size',
  'average_sales_cycle',
  'quota_attainment',
  'pipeline_coverage',
] as const;

export type MetricName = (typeof METRIC_NAMES)[number];

const NOTHING: MetricRequirements = { currency: false, period: false, targets: false };

/** In the contract's order; unfiltered answers list metrics in this order. */
export const METRIC_CATALOGUE: readonly MetricDefinition[] = [
  {
    id: 'bd2ae38c-4aff-4af2-9e41-9a6122af9b96',
    apiCodename: 'pipeline_value',
    unitKind: 'currency',
    requires: { ...NOTHING, currency: true },
    description: 'Sum of amounts of open opportunities',
  },
  {
    id: 'd2693760-79b6-4738-ad27-7db248abd074',
    apiCodename: 'weighted_pipeline_value',
    unitKind: 'currency',
    requires: { ...NOTHING, currency: true },
    description: 'Sum of amount x stage probability over open opportunities',
  },
  {
    id: '597517d3-153e-4129-8263-f97b6283bd3f',
    apiCodename: 'open_opportunities',
    unitKind: 'count',
    requires: NOTHING,
    description: 'Number of open opportunities',
  },
  {
    id: 'ef467216-5591-4463-a2d5-bc1d91ee793f',
    apiCodename: 'win_rate',
    unitKind: 'percentage',
    requires: { ...NOTHING, period: true },
    description: 'Won / (won + lost) x 100 over opportunities closed in the period',
  },
  {
    id: '73917274-b2fc-4aa4-946e-a86d2da9299a',
    apiCodename: 'average_deal_size',
    unitKind: 'currency',
    requires: { ...NOTHING, currency: true, period: true },
    description: 'Won amount / won count in the period',
  },
  {
    id: '408b0b46-7763-425c-a4d2-49fd1ee42019',
    apiCodename: 'average_sales_cycle',
    unitKind: 'days',
    requires: { ...NOTHING, period: true },
    description: 'Mean days from creation to close of opportunities won in the period',
  },
  {
    id: 'b7a73a33-7525-4ec1-a3d5-da5c72e9d677',
    apiCodename: 'quota_attainment',
    unitKind: 'percentage',
    requires: { ...NOTHING, period: true, targets: true },
    description:
      "Won amount in the period / targets of the pipeline's members for the period x 100",
  },
  {
    id: '4b3206bb-6d3d-4cfd-ab36-c88cf793496d',
    apiCodename: 'pipeline_coverage',
    unitKind: 'percentage',
    requires: { ...NOTHING, period: true, targets: true },
    description: 'Open amount closing in the period / (targets - won amount in the period) x 100',
  },
];

const BY_NAME = new Map<string, MetricDefinition>(METRIC_CATALOGUE.map((d) => [d.apiCodename, d]));

export function isMetricName(value: unknown): value is MetricName {
  return typeof value === 'string' && BY_NAME.has(value);
}

/** The definition of a known name; callers validate names first (see `parseMetricNames`). */
export function metricDefinition(name: MetricName): MetricDefinition {
  return BY_NAME.get(name)!;
}
