import type { ApolloServerPlugin, GraphQLRequestContext } from '@apollo/server';
import type { FormattedExecutionResult } from 'graphql';
import type { RequestContext } from '../context/request-context';
import { type AnswerCache, callerKey } from '../data/answer-cache';

/** A kept answer: the result as Apollo sends it. */
export interface KeptGraphQLAnswer {
  result: FormattedExecutionResult;
}

function keyOf(requestContext: GraphQLRequestContext<RequestContext>): string | null {
  const { operation, source, operationName, request, contextValue } = requestContext;
  if (operation?.operation !== 'query' || source === undefined) return null;
  return `${callerKey(contextValue.principal)}\u0000${operationName ?? ''}\u0000${source}\u0000${JSON.stringify(request.variables ?? {})}`;
}

/**
 * Whole answers of queries, per caller and request (AnswerCache: valid while the scopes the
 * query read keep their versions, and the same UTC day), on the two hooks Apollo's own response
 * cache uses: `responseForOperation` answers from the cache before execution, `willSendResponse`
 * keeps what execution produced. Only error-free query answers are kept: a mutation always runs,
 * and an error (NOT_FOUND, FORBIDDEN...) is worked out again each time.
 */
export function answerCachePlugin(answers: AnswerCache<KeptGraphQLAnswer>): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      let key: string | null = null;
      let fromCache = false;
      return {
        async responseForOperation(requestContext) {
          key = keyOf(requestContext);
          if (key === null) return null;
          const kept = answers.get(key, requestContext.contextValue.data.view);
          if (kept === undefined) return null;
          fromCache = true;
          return { http: requestContext.response.http, body: { kind: 'single', singleResult: kept.result } };
        },
        async willSendResponse(requestContext) {
          if (key === null || fromCache) return;
          const { body } = requestContext.response;
          if (body.kind !== 'single') return;
          const result = body.singleResult;
          if (result.errors !== undefined || result.extensions !== undefined || !result.data) return;
          const bytes = key.length + JSON.stringify(result.data).length; // the key holds the query text: it counts too
          answers.keep(key, { result: { data: result.data } }, bytes, requestContext.contextValue.data);
        },
      };
    },
  };
}
