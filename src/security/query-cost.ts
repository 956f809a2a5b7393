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
  type ValueNode,
} from 'graphql';
import { INTROSPECTION_FIELDS } from './graphql-limits';

/**
 * The cost model, documented in README "Security": every field costs 1; a field with a `first`
 * argument multiplies what it selects by that page size (its default when absent); the
 * `edges`/`nodes` lists of such a page cost nothing more; any other list field multiplies by
 * `defaultListSize`. Fragments are expanded; a spread already being expanded counts 0.
 */
export const QUERY_COST = {
  /** Highest estimated cost an operation may have. The explorer's default query costs about 2 000. */
  maxCost: 20_000,
  /** Assumed length of a list field without a page size (teams, pipelines, metrics, stages...). */
  defaultListSize: 10,
  /** Page size when `first` is absent (the schema's default). */
  defaultPageSize: 20,
  /** Largest page size the schema accepts. */
  maxPageSize: 100,
} as const;

const PAGE_LISTS = new Set(['edges', 'nodes']);

function pageSize(value: ValueNode | undefined, variables: Record<string, unknown>): number {
  let raw: unknown = QUERY_COST.defaultPageSize;
  if (value?.kind === Kind.INT) raw = Number(value.value);
  else if (value?.kind === Kind.VARIABLE) raw = variables[value.name.value] ?? QUERY_COST.defaultPageSize;
  // Out-of-range sizes are refused by argument validation; here they only must not lower the estimate.
  return typeof raw === 'number' && Number.isFinite(raw) ? Math.min(Math.max(raw, 1), QUERY_COST.maxPageSize) : QUERY_COST.maxPageSize;
}

interface Walk {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  expanding: Set<string>;
}

function costOf(selectionSet: SelectionSetNode, parent: GraphQLCompositeType | undefined, walk: Walk, paged: boolean): number {
  let total = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      const fields = parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields() : undefined;
      const definition = fields?.[selection.name.value];
      total += 1;
      // Introspection is bounded by its policy and the token limit, as in the depth rule.
      if (!selection.selectionSet || !definition || INTROSPECTION_FIELDS.has(selection.name.value)) continue;
      const named = getNamedType(definition.type) as GraphQLCompositeType;
      const firstArg = selection.arguments?.find((argument) => argument.name.value === 'first');
      const takesFirst = definition.args.some((argument) => argument.name === 'first');
      let multiplier = 1;
      if (takesFirst) multiplier = pageSize(firstArg?.value, walk.variables);
      else if (isListType(getNullableType(definition.type)) && !(paged && PAGE_LISTS.has(selection.name.value))) multiplier = QUERY_COST.defaultListSize;
      total += multiplier * costOf(selection.selectionSet, named, walk, takesFirst);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const condition = selection.typeCondition ? (walk.schema.getType(selection.typeCondition.name.value) as GraphQLCompositeType | undefined) : parent;
      total += costOf(selection.selectionSet, condition, walk, paged);
    } else {
      const name = selection.name.value;
      const fragment = walk.fragments.get(name);
      if (!fragment || walk.expanding.has(name)) continue;
      walk.expanding.add(name);
      total += costOf(fragment.selectionSet, walk.schema.getType(fragment.typeCondition.name.value) as GraphQLCompositeType | undefined, walk, paged);
      walk.expanding.delete(name);
    }
    // Beyond any limit the exact figure is irrelevant; stop before reused fragments blow up the walk.
    if (total > QUERY_COST.maxCost * 10) return total;
  }
  return total;
}

/** Estimated cost of one operation of a validated document, with its variables. */
export function estimateCost(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown> = {}): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const root = operation.operation === 'query' ? schema.getQueryType() : operation.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  return costOf(operation.selectionSet, root ?? undefined, { schema, fragments, variables, expanding: new Set() }, false);
}
