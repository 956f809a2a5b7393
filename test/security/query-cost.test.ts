import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  getNamedType,
  getNullableType,
  isCompositeType,
  isListType,
  isObjectType,
  parse,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { buildGatewaySchema } from '../../src/graphql/build-schema';
import { metricCount } from '../../src/security/field-costs';
import { estimateCost, QUERY_COST } from '../../src/security/query-cost';

let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await buildGatewaySchema();
});

function cost(query: string, variables?: Record<string, unknown>): number {
  const document = parse(query);
  return estimateCost(
    schema,
    document,
    document.definitions[0] as OperationDefinitionNode,
    variables,
  );
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
    for (const odd of [0, -1, 1e9])
      expect(cost(page('(first: $n)', '($n: Int)'), { n: odd })).toBe(40_111);
  });

  it('throws what execution would for variables that do not coerce and for an explicit null', () => {
    const page = (variables: string) =>
      `query${variables} { snapshots(first: $n) { edges { node { id } } } }`;
    expect(() => cost(page('($n: Int)'), { n: 'ten' })).toThrow(
      /^Variable "\$n" got invalid value "ten"; Int cannot represent non-integer value/,
    );
    expect(() => cost(page('($n: Int)'), { n: 2.5 })).toThrow(/^Variable "\$n" got invalid value/);
    // An explicit null overrides the variable's default, and `first` must not be null.
    expect(() => cost(page('($n: Int = 100)'), { n: null })).toThrow(
      'Argument "first" of non-null type "Int!" must not be null.',
    );
    expect(cost(page('($n: Int = 100)'))).toBe(1 + 100 * 3);
  });

  it('counts a time series as its duration in evaluations, with what it selects per period', () => {
    // pipeline 1 + timeseries (1 + 10 × (3 + points (1 + value 1))) = 52
    expect(
      cost(onePipeline('timeseries(metric: "win_rate", duration: 10) { points { value } }')),
    ).toBe(52);
    expect(
      cost(
        onePipeline(
          'timeseries(metric: "win_rate", duration: $d) { points { value } }',
          '($d: Int! = 10)',
        ),
      ),
    ).toBe(52);
    expect(
      cost(
        onePipeline(
          'timeseries(metric: "win_rate", duration: $d) { points { value } }',
          '($d: Int! = 10)',
        ),
        { d: 104 },
      ),
    ).toBe(1 + 1 + 104 * 5);
    // The series' own fields count per period as well.
    expect(
      cost(
        onePipeline(
          'timeseries(metric: "win_rate", duration: 10) { unit points { period value } }',
        ),
      ),
    ).toBe(1 + 1 + 10 * (3 + 1 + 1 + 2));
    // An out-of-range duration counts as the longest.
    expect(
      cost(
        onePipeline(
          'timeseries(metric: "win_rate", duration: $d) { points { value } }',
          '($d: Int!)',
        ),
        { d: 1000 },
      ),
    ).toBe(1 + 1 + 104 * 5);
  });

  it('prices the flood of finding 5 far over the limit', () => {
    const series = Array.from(
      { length: 14 },
      (_, i) => `a${i}: timeseries(metric: "win_rate", duration: 104) { points { value } }`,
    ).join(' ');
    // snapshot 1 + definitions (1 + 10 × (pipelines 1 + 10 × 14 × (1 + 104 × 5)))
    expect(cost(`{ snapshot { definitions { pipelines { ${series} } } } }`)).toBe(729_412);
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

  it('declares a complexity on every list and page of objects: none falls back to 1', () => {
    const undeclared: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        const many =
          field.args.some((argument) => argument.name === 'first') ||
          (isListType(getNullableType(field.type)) && isCompositeType(getNamedType(field.type)));
        if (many && field.extensions.complexity === undefined)
          undeclared.push(`${type.name}.${field.name}`);
      }
    }
    expect(undeclared).toEqual([]);
  });

  it('stops counting a document that expands to more fields than the limit', () => {
    const fields = Array.from({ length: 40 }, () => 'role').join(' ');
    const spreads = (name: string) => Array.from({ length: 40 }, () => `...${name}`).join(' ');
    // 40 × 40 × 40 fields once expanded, in a few hundred tokens.
    const bomb = `{ viewer { ...A } } fragment A on Viewer { ${spreads('B')} }
      fragment B on Viewer { ${spreads('C')} } fragment C on Viewer { ${fields} }`;
    expect(() => cost(bomb)).toThrow('Query exceeds the maximum allowed number of nodes.');
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
