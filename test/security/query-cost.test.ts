import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSchema, parse, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { buildGatewaySchema } from '../../src/graphql/build-schema';
import { metricCount } from '../../src/security/field-costs';
import { estimateCost, QUERY_COST } from '../../src/security/query-cost';

let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await buildGatewaySchema();
});

function cost(
  query: string,
  variables?: Record<string, unknown>,
  on: GraphQLSchema = schema,
): number {
  const document = parse(query);
  return estimateCost(on, document, document.definitions[0] as OperationDefinitionNode, variables);
}

/** `pipeline(id)` is no list: what it selects counts once. */
const onePipeline = (selection: string, variables = '') =>
  `query${variables} { pipeline(id: "sales") { ${selection} } }`;

describe('query cost estimate', () => {
  it('reads page sizes from variables, their operation defaults and the argument default', () => {
    const page = (first: string, variables = '') =>
      `query${variables} { teams { pipelines { opportunities${first} { edges { node { id amount } } } } } }`;
    expect(cost(page('(first: 100)'))).toBe(40_111);
    expect(cost(page('(first: $n)', '($n: Int! = 100)'))).toBe(40_111);
    expect(cost(page('(first: $n)', '($n: Int! = 100)'), { n: 5 })).toBe(2_111);
    expect(cost(page(''))).toBe(8_111); // the schema's `first: Int! = 20`
    // A variable neither sent nor defaulted leaves the argument to its default.
    expect(cost(page('(first: $n)', '($n: Int)'))).toBe(8_111);
    // What validation refuses later must not lower the estimate.
    for (const odd of ['ten', 0, -1, 2.5, null, 1e9])
      expect(cost(page('(first: $n)', '($n: Int)'), { n: odd })).toBe(40_111);
  });

  it('takes the default from the schema, not from a constant', () => {
    const small = buildSchema(
      'type Query { items(first: Int = 7): Page } type Page { edges: [Edge] } type Edge { node: Item } type Item { id: ID }',
    );
    // items 1 + 7 × (edges 1 + node (1 + id 1)) = 22
    expect(cost('{ items { edges { node { id } } } }', undefined, small)).toBe(22);
  });

  it('counts a time series as its duration in evaluations and points', () => {
    // pipeline 1 + timeseries (1 + 10 × 3) + points (1 + 10 × value 1) = 43
    expect(
      cost(onePipeline('timeseries(metric: "win_rate", duration: 10) { points { value } }')),
    ).toBe(43);
    expect(
      cost(
        onePipeline(
          'timeseries(metric: "win_rate", duration: $d) { points { value } }',
          '($d: Int! = 10)',
        ),
      ),
    ).toBe(43);
    expect(
      cost(
        onePipeline(
          'timeseries(metric: "win_rate", duration: $d) { points { value } }',
          '($d: Int! = 10)',
        ),
        { d: 104 },
      ),
    ).toBe(1 + 1 + 312 + 105);
    // Every field of a point counts per point; the series' own fields once.
    expect(
      cost(
        onePipeline(
          'timeseries(metric: "win_rate", duration: 10) { unit points { period value } }',
        ),
      ),
    ).toBe(1 + 1 + 30 + 1 + 1 + 10 * 2);
    expect(
      cost(
        onePipeline(
          'timeseries(metric: "win_rate", duration: $d) { points { value } }',
          '($d: Int!)',
        ),
        { d: 'lots' },
      ),
    ).toBe(1 + 1 + 312 + 105);
  });

  it('prices the flood of finding 5 far over the limit', () => {
    const series = Array.from(
      { length: 14 },
      (_, i) => `a${i}: timeseries(metric: "win_rate", duration: 104) { points { value } }`,
    ).join(' ');
    expect(cost(`{ snapshot { definitions { pipelines { ${series} } } } }`)).toBe(585_212);
  });

  it('counts metrics by the number evaluated, eight without names', () => {
    // pipeline 1 + metrics (1 + n × 3) + n results × value 1
    expect(cost(onePipeline('metrics { value }'))).toBe(1 + 1 + 24 + 8);
    expect(cost(onePipeline('metrics(names: ["win_rate", "pipeline_value"]) { value }'))).toBe(
      1 + 1 + 6 + 2,
    );
    expect(
      cost(onePipeline('metrics(names: $names) { value }', '($names: [String!] = ["win_rate"])')),
    ).toBe(1 + 1 + 3 + 1);
    expect(
      cost(onePipeline('metrics(names: $names) { value }', '($names: [String!])'), {
        names: ['win_rate', 'win_rate'],
      }),
    ).toBe(1 + 1 + 3 + 1);
    expect(
      cost(onePipeline('metrics(names: $names) { value }', '($names: [String!])'), { names: [] }),
    ).toBe(1 + 1 + 24 + 8);
  });

  it('reads metric names as the service does: comma-joined, deduplicated, at most the catalogue', () => {
    expect(metricCount(undefined)).toBe(8);
    expect(metricCount(null)).toBe(8);
    expect(metricCount([])).toBe(8);
    expect(metricCount('win_rate,pipeline_value')).toBe(2);
    expect(metricCount(['win_rate, pipeline_value', 'win_rate'])).toBe(2);
    expect(metricCount(Array.from({ length: 50 }, (_, i) => `m${i}`))).toBe(8);
    expect(metricCount(42)).toBe(8);
  });

  it('keeps variables without a prototype: a field named like an Object member finds nothing', () => {
    const page =
      'query($constructor: Int) { teams { pipelines { opportunities(first: $constructor) { edges { node { id } } } } } }';
    expect(cost(page)).toBe(
      cost('{ teams { pipelines { opportunities { edges { node { id } } } } } }'),
    );
  });

  it('keeps the explorer default query well under the limit', () => {
    const explorer = readFileSync(
      path.join(__dirname, '../../src/graphql/operations/explorer-overview.graphql'),
      'utf8',
    );
    expect(cost(explorer)).toBe(6_944);
    expect(cost(explorer)).toBeLessThan(QUERY_COST.maxCost / 2);
  });
});
