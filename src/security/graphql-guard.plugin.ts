import { createHash } from 'node:crypto';
import type { ApolloServerPlugin } from '@apollo/server';
import {
  BREAK,
  GraphQLError,
  visit,
  type DocumentNode,
  type OperationDefinitionNode,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import { Role } from '../auth/role';
import type { RequestContext } from '../context/request-context';
import { ErrorCode, ErrorWithCode } from '../errors';
import { INTROSPECTION_FIELDS } from './graphql-limits';
import { checkedVariables, userInputError } from './graphql-variables';
import { estimateCost, QUERY_COST } from './query-cost';

/** Who may introspect the schema (INTROSPECTION): admins (GraphiQL with the admin token), everyone authenticated, or no one. */
export type IntrospectionPolicy = 'admins' | 'all' | 'off';

/**
 * Bytes the costs of queries kept in memory may take, each counted as `COST_ENTRY_BYTES`: its
 * key (a sha256 digest, whatever the size of the query and its variables), the number and the
 * LRU's bookkeeping.
 */
const COST_MEMO_BYTES = 2 * 1024 * 1024;
const COST_ENTRY_BYTES = 200;

/** graphql-query-complexity's message when a document expands to more fields than `maxQueryNodes`. */
const TOO_MANY_NODES = 'Query exceeds the maximum allowed number of nodes.';

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

function refused(message: string): ErrorWithCode {
  return new ErrorWithCode(message, ErrorCode.GRAPHQL_VALIDATION_FAILED);
}

const LOWER_IT =
  'lower page sizes, time-series durations or metric counts, or select fewer nested lists';

/**
 * Checks that need the caller or the variables, after validation and before execution, in
 * Apollo's `didResolveOperation`:
 * - the introspection policy (400 GRAPHQL_VALIDATION_FAILED);
 * - the variables (graphql-variables.ts): only those the operation declares are kept on the
 *   request, so nothing after (the answer cache's key, execution) carries the others; 400
 *   BAD_USER_INPUT for one too deep, too wide, or that does not coerce to its type;
 * - the cost estimate (query-cost.ts) against `maxCost` (400 GRAPHQL_VALIDATION_FAILED).
 * No resolver runs after a refusal. Costs of queries are kept per operation text and declared
 * variables (a digest of both), within COST_MEMO_BYTES, by this plugin instance (one per app).
 */
export function graphqlGuardPlugin(options: {
  introspection: IntrospectionPolicy;
  maxCost?: number;
}): ApolloServerPlugin<RequestContext> {
  const maxCost = options.maxCost ?? QUERY_COST.maxCost;
  // Apollo hands the same document object for the same query text (its bounded document cache):
  // whether a document introspects is worked out once per document, and forgotten with it.
  const introspects = new WeakMap<DocumentNode, boolean>();
  const costs = new LRUCache<string, number>({
    maxSize: COST_MEMO_BYTES,
    sizeCalculation: () => COST_ENTRY_BYTES,
  });
  const introspectionIn = (document: DocumentNode): boolean => {
    let found = introspects.get(document);
    if (found === undefined) introspects.set(document, (found = usesIntrospection(document)));
    return found;
  };
  /** The operation's cost; Infinity past `maxCost` fields. Refusals are kept as well as answers. */
  const costOf = (
    schema: Parameters<typeof estimateCost>[0],
    document: DocumentNode,
    operation: OperationDefinitionNode,
    source: string,
    variables: Record<string, unknown>,
  ): number => {
    // Only queries are kept: a dashboard repeats its query, while a mutation's variables (a whole
    // import) would cost more to digest than to count.
    const key =
      operation.operation === 'query'
        ? createHash('sha256')
            .update(`${operation.name?.value ?? ''}\u0000${source}\u0000`)
            .update(JSON.stringify(variables))
            .digest('base64')
        : undefined;
    let cost = key === undefined ? undefined : costs.get(key);
    if (cost !== undefined) return cost;
    try {
      // Past `maxCost` fields, every one costing at least 1, the count would only grow.
      cost = estimateCost(schema, document, operation, variables, maxCost + 1);
    } catch (error) {
      if (!(error instanceof GraphQLError)) throw error;
      if (error.message !== TOO_MANY_NODES) throw userInputError(error);
      cost = Infinity;
    }
    if (key !== undefined) costs.set(key, cost);
    return cost;
  };
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ contextValue, document, operation, request, schema, source }) {
          if (options.introspection !== 'all' && introspectionIn(document)) {
            const allowed =
              options.introspection === 'admins' && contextValue.principal?.role === Role.ADMIN;
            // Same wording whatever the reason, so the policy itself is not advertised.
            if (!allowed) throw refused('GraphQL introspection is not allowed for this token');
          }
          if (!operation) return; // Apollo itself refuses a document without the named operation
          const variables = checkedVariables(schema, operation, request.variables ?? {});
          request.variables = variables;
          const cost = costOf(schema, document, operation, source, variables);
          if (cost === Infinity)
            throw refused(
              `Query cost exceeds the limit of ${maxCost}: the operation has more than ${maxCost} fields once its fragments are expanded (${LOWER_IT})`,
            );
          if (cost > maxCost)
            throw refused(`Query cost ${cost} exceeds the limit of ${maxCost} (${LOWER_IT})`);
        },
      };
    },
  };
}
