import type { ApolloServerPlugin } from '@apollo/server';
import {
  BREAK,
  visit,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { Role } from '../auth/role';
import type { RequestContext } from '../context/request-context';
import { ErrorCode, ErrorWithCode } from '../errors';
import { INTROSPECTION_FIELDS } from './graphql-limits';
import { estimateCost, QUERY_COST } from './query-cost';

/** Who may introspect the schema (INTROSPECTION): admins (GraphiQL with the admin token), everyone authenticated, or no one. */
export type IntrospectionPolicy = 'admins' | 'all' | 'off';

function usesIntrospection(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (INTROSPECTION_FIELDS.has(node.name.value)) {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/** Costs kept per operation, one per different variables (then it starts over). */
const COSTS_PER_OPERATION = 100;

function refused(message: string): ErrorWithCode {
  return new ErrorWithCode(message, ErrorCode.GRAPHQL_VALIDATION_FAILED);
}

/**
 * Checks that need the caller or the variables, after validation and before execution: the
 * introspection policy and the cost estimate. Either refusal is a 400 GRAPHQL_VALIDATION_FAILED
 * and no resolver runs.
 */
export function graphqlGuardPlugin(options: {
  introspection: IntrospectionPolicy;
  maxCost?: number;
}): ApolloServerPlugin<RequestContext> {
  const maxCost = options.maxCost ?? QUERY_COST.maxCost;
  // Apollo hands the same document object for the same query text (its document cache): what a
  // document implies is worked out once per document, and per variables for the cost.
  const introspects = new WeakMap<DocumentNode, boolean>();
  const costs = new WeakMap<OperationDefinitionNode, Map<string, number>>();
  const introspectionIn = (document: DocumentNode): boolean => {
    let found = introspects.get(document);
    if (found === undefined) introspects.set(document, (found = usesIntrospection(document)));
    return found;
  };
  const costOf = (
    schema: GraphQLSchema,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Record<string, unknown>,
  ): number => {
    const key = JSON.stringify(variables);
    let known = costs.get(operation);
    if (known === undefined) costs.set(operation, (known = new Map()));
    let cost = known.get(key);
    if (cost === undefined) {
      cost = estimateCost(schema, document, operation, variables);
      if (known.size >= COSTS_PER_OPERATION) known.clear();
      known.set(key, cost);
    }
    return cost;
  };
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ contextValue, document, operation, request, schema }) {
          if (options.introspection !== 'all' && introspectionIn(document)) {
            const allowed =
              options.introspection === 'admins' && contextValue.principal?.role === Role.ADMIN;
            // Same wording whatever the reason, so the policy itself is not advertised.
            if (!allowed) throw refused('GraphQL introspection is not allowed for this token');
          }
          if (!operation) return; // Apollo itself refuses a document without the named operation
          const cost = costOf(schema, document, operation, request.variables ?? {});
          if (cost > maxCost)
            throw refused(
              `Query cost ${cost} exceeds the limit of ${maxCost} (lower page sizes, time-series durations or metric counts, or select fewer nested lists)`,
            );
        },
      };
    },
  };
}
