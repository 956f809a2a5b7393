import {
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  isInterfaceType,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { argumentValues, variablesWithDefaults, type VariableValues } from './argument-values';
import { countFrom, FIELD_COSTS } from './field-costs';
import { INTROSPECTION_FIELDS } from './graphql-limits';

/**
 * The cost model: every field costs 1; a list multiplies what it selects by `defaultListSize`; a
 * field with a `first` argument is a page and multiplies what it selects by its page size, its
 * `edges`/`nodes` adding nothing more; the fields of FIELD_COSTS (field-costs.ts) add the work
 * their arguments ask for and know their lists' lengths (`timeseries`: `duration` evaluations and
 * points; `metrics`: one evaluation and one result per metric, 8 without `names`). Arguments are
 * read with the request's variables, the operation's variable defaults and the schema's argument
 * defaults. Fragments are expanded; a spread already being expanded counts 0.
 *
 * Measured with test/bench/healthz-under-load.bench.ts (demo company, 2-core machine shared with
 * other work, 2026-11-23): a cost unit is 1-3 µs of gateway CPU for series, metrics and plain
 * fields alike; the heaviest accepted series and metrics queries take 25-57 ms, and while four
 * clients send them back to back /healthz answers in 10-21 ms (p50). Opportunity pages are priced
 * by their rows only: the store's read of a page (about 10 ms at the demo size) is not counted.
 */
export const QUERY_COST = {
  /** Highest estimated cost an operation may have. The explorer's default query costs about 7 000. */
  maxCost: 20_000,
  /** Assumed length of a list field without a known length (teams, pipelines, stages...). */
  defaultListSize: 10,
  /** Largest page size the schema accepts; a page size the estimate cannot read counts as this. */
  maxPageSize: 100,
} as const;

/** Below a page: its `edges` and `nodes` are the page itself. */
const PAGE_LISTS: ReadonlyMap<string, number> = new Map([
  ['edges', 1],
  ['nodes', 1],
]);
const NO_LISTS: ReadonlyMap<string, number> = new Map();

interface Walk {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
  variables: VariableValues;
  expanding: Set<string>;
}

/** `lists`: lengths of the list fields of this selection set that the field above knows. */
function costOf(
  selectionSet: SelectionSetNode,
  parent: GraphQLCompositeType | undefined,
  walk: Walk,
  lists: ReadonlyMap<string, number>,
): number {
  let total = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      const fields =
        parent && (isObjectType(parent) || isInterfaceType(parent))
          ? parent.getFields()
          : undefined;
      const name = selection.name.value;
      const definition = fields?.[name];
      total += 1;
      // Introspection is bounded by its policy and the token limit, as in the depth rule.
      if (!definition || INTROSPECTION_FIELDS.has(name)) continue;
      const costs = FIELD_COSTS.get(`${parent!.name}.${name}`);
      const paged = definition.args.some((argument) => argument.name === 'first');
      const args =
        costs || paged ? argumentValues(definition, selection, walk.variables) : undefined;
      if (costs?.work) total += costs.work(args!);
      if (!selection.selectionSet) continue;
      let multiplier = 1;
      if (paged) multiplier = countFrom(args!.first, QUERY_COST.maxPageSize);
      else if (isListType(getNullableType(definition.type)))
        multiplier = lists.get(name) ?? costs?.items?.(args!) ?? QUERY_COST.defaultListSize;
      const below = paged ? PAGE_LISTS : (costs?.lists?.(args!) ?? NO_LISTS);
      total +=
        multiplier *
        costOf(
          selection.selectionSet,
          getNamedType(definition.type) as GraphQLCompositeType,
          walk,
          below,
        );
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const condition = selection.typeCondition
        ? (walk.schema.getType(selection.typeCondition.name.value) as
            GraphQLCompositeType | undefined)
        : parent;
      total += costOf(selection.selectionSet, condition, walk, lists);
    } else {
      const name = selection.name.value;
      const fragment = walk.fragments.get(name);
      if (!fragment || walk.expanding.has(name)) continue;
      walk.expanding.add(name);
      total += costOf(
        fragment.selectionSet,
        walk.schema.getType(fragment.typeCondition.name.value) as GraphQLCompositeType | undefined,
        walk,
        lists,
      );
      walk.expanding.delete(name);
    }
    // Beyond any limit the exact figure is irrelevant; stop before reused fragments blow up the walk.
    if (total > QUERY_COST.maxCost * 10) return total;
  }
  return total;
}

/** Estimated cost of one operation of a validated document, with the variables as sent. */
export function estimateCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> = {},
): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION)
      fragments.set(definition.name.value, definition);
  }
  const root =
    operation.operation === 'query'
      ? schema.getQueryType()
      : operation.operation === 'mutation'
        ? schema.getMutationType()
        : schema.getSubscriptionType();
  const walk = {
    schema,
    fragments,
    variables: variablesWithDefaults(schema, operation, variables),
    expanding: new Set<string>(),
  };
  return costOf(operation.selectionSet, root ?? undefined, walk, NO_LISTS);
}
