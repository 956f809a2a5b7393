import { createHash } from 'node:crypto';
import type { ApolloServerPlugin, GraphQLRequestContext } from '@apollo/server';
import type { GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { AuthenticatedContext } from '../context/request-context';
import { callerKey, type AnswerCache, type KeptGraphQLAnswer } from '../data/answer-cache';

/**
 * The field extension that keeps a root query field's answers out of the cache: set with
 * type-graphql's `@Extensions({ [NOT_KEPT]: true })` on a field whose answer depends on more than
 * the stored data's versions and the day (a sync's progress, say).
 */
export const NOT_KEPT = 'answerNotKept';

/** Whether every root field of a query may be kept; worked out once per operation. */
function keepableQuery(schema: GraphQLSchema, operation: OperationDefinitionNode): boolean {
  const fields = schema.getQueryType()?.getFields() ?? {};
  return operation.selectionSet.selections.every(
    (selection) =>
      selection.kind !== 'Field' || fields[selection.name.value]?.extensions?.[NOT_KEPT] !== true,
  );
}

/**
 * The key of a query's answer: a digest of the caller, the operation and the values of the
 * variables it declares (others cannot change the answer, and must not fill the cache).
 */
function keyOf(requestContext: GraphQLRequestContext<AuthenticatedContext>): string {
  const { operation, source, operationName, request, contextValue } = requestContext;
  const declared: Record<string, unknown> = {};
  for (const definition of operation?.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    declared[name] = request.variables?.[name];
  }
  return createHash('sha256')
    .update(`${callerKey(contextValue.principal)}\u0000${operationName ?? ''}\u0000${source ?? ''}`)
    .update(`\u0000${JSON.stringify(declared)}`)
    .digest('base64');
}

/**
 * Whole answers of queries, per caller and request (AnswerCache: valid while no mutable scope has
 * moved, and the same UTC day), on the two hooks Apollo's own response cache uses:
 * `responseForOperation` answers from the cache before execution, `willSendResponse` keeps what
 * execution produced. Only error-free query answers are kept: a mutation always runs, and an
 * error (NOT_FOUND, FORBIDDEN...) is worked out again each time.
 */
export function answerCachePlugin(
  answers: AnswerCache<KeptGraphQLAnswer>,
): ApolloServerPlugin<AuthenticatedContext> {
  const keepable = new WeakMap<OperationDefinitionNode, boolean>();
  return {
    async requestDidStart() {
      let key: string | null = null;
      let fromCache = false;
      return {
        async responseForOperation(requestContext) {
          const { operation, schema } = requestContext;
          if (operation?.operation !== 'query') return null;
          let mayKeep = keepable.get(operation);
          if (mayKeep === undefined)
            keepable.set(operation, (mayKeep = keepableQuery(schema, operation)));
          if (!mayKeep) return null;
          // A query validated and let through: what it reads comes after the counters it is kept under.
          let view;
          try {
            view = await requestContext.contextValue.data.ensureView();
          } catch {
            // The database is away: execution meets the same failure, answered as it is (a 503).
            return null;
          }
          key = keyOf(requestContext);
          const kept = answers.get(key, view);
          if (kept === undefined) return null;
          fromCache = true;
          return {
            http: requestContext.response.http,
            body: { kind: 'single', singleResult: { data: kept.data } },
          };
        },
        async willSendResponse(requestContext) {
          const view = requestContext.contextValue.data.view;
          if (key === null || fromCache || view === undefined) return;
          const { body } = requestContext.response;
          if (body.kind !== 'single') return;
          const result = body.singleResult;
          if (result.errors !== undefined || result.extensions !== undefined || !result.data)
            return;
          const bytes = key.length + JSON.stringify(result.data).length;
          answers.keep(key, { data: result.data }, bytes, view);
        },
      };
    },
  };
}
