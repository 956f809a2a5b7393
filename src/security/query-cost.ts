import type { DocumentNode, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator } from 'graphql-query-complexity';

/**
 * The cost model, declared on the schema's fields as `complexity` (graphql-query-complexity's
 * field extensions, set with type-graphql's `@Field({ complexity })`, field-costs.ts): every field costs 1 plus
 * what it selects; a list multiplies what it selects by its length (`defaultListSize` when it is
 * not known); a page (a field with a `first` argument) by its page size, its `edges` adding
 * nothing more; `metrics` and `timeseries` add the evaluations their arguments ask for. Arguments
 * are the values execution will see: variables coerced, defaults applied.
 *
 * Measured with test/bench/healthz-under-load.bench.ts (docs/performance.md): a cost unit is
 * about as much gateway CPU for series, metrics and plain fields alike.
 */
export const QUERY_COST = {
  /** Highest estimated cost an operation may have. The explorer's default query costs about 7 000. */
  maxCost: 20_000,
  /** Assumed length of a list field without a known length (teams, pipelines, stages...). */
  defaultListSize: 10,
  /** Largest page size the schema accepts; a page size out of range counts as this. */
  maxPageSize: 100,
} as const;

/**
 * Estimated cost of one operation of a validated document with the request's variables, by
 * graphql-query-complexity: the `complexity` a field declares, else 1 plus what it selects.
 * Variables are coerced as execution coerces them and arguments take their defaults, so a
 * variable of the wrong type, or an explicit null where an argument must not be null, throws the
 * GraphQLError execution would raise. A document that expands to `maxNodes` fields or more
 * (fragments reused) throws too, before the count grows further.
 */
export function estimateCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> = {},
  maxNodes: number = QUERY_COST.maxCost + 1,
): number {
  return getComplexity({
    schema,
    query: document,
    // Without a name every operation of the document would count; an anonymous one is alone.
    operationName: operation.name?.value,
    variables,
    estimators: [fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 1 })],
    maxQueryNodes: maxNodes,
  });
}
