import type { ApolloServerPlugin, GraphQLRequestContext } from '@apollo/server';
import type { FormattedExecutionResult } from 'graphql';
import type { RequestContext } from '../context/request-context';
import { type AnswerCache, callerKey } from '../data/answer-cache';

/** A kept answer: the result as Apollo sends it. */
export interface KeptGraphQLAnswer {
  result: FormattedExecutionResult;
}

/**
 * The serialised text of a kept answer's `data`, carried by that object itself (not enumerable,
 * so JSON.stringify never sees it). Apollo copies the result's fields into a new object before
 * `stringifyResult`, but passes `data` along as it is: a kept answer is then sent as the text it
 * was serialised to once, rather than serialised again on every request.
 */
const KEPT_TEXT = Symbol('kept answer text');

type DataWithText = Record<string, unknown> & { [KEPT_TEXT]?: string };

/** Apollo's serialisation (prettyJSONStringify), which answers must keep byte for byte. */
function stringify(value: FormattedExecutionResult): string {
  return `${JSON.stringify(value)}\n`;
}

/** Apollo `stringifyResult`: a kept answer's text as it was made, anything else serialised now. */
export function stringifyResult(value: FormattedExecutionResult): string {
  if (value.errors === undefined && value.extensions === undefined && value.data) {
    const text = (value.data as DataWithText)[KEPT_TEXT];
    if (text !== undefined) return text;
  }
  return stringify(value);
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
export function answerCachePlugin(
  answers: AnswerCache<KeptGraphQLAnswer>,
): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      let key: string | null = null;
      let fromCache = false;
      return {
        async responseForOperation(requestContext) {
          key = keyOf(requestContext);
          if (key === null) return null;
          // A query validated and let through: what it reads comes after the counters it is kept under.
          let view;
          try {
            view = await requestContext.contextValue.data.ensureView();
          } catch {
            // The database is away: execution meets the same failure, answered as it is (a 503),
            // and nothing read without the counters is kept.
            return null;
          }
          const kept = answers.get(key, view);
          if (kept === undefined) return null;
          fromCache = true;
          return {
            http: requestContext.response.http,
            body: { kind: 'single', singleResult: kept.result },
          };
        },
        async willSendResponse(requestContext) {
          if (key === null || fromCache) return;
          const { body } = requestContext.response;
          if (body.kind !== 'single') return;
          const result = body.singleResult;
          if (result.errors !== undefined || result.extensions !== undefined || !result.data)
            return;
          // Serialised here once: Apollo serialises after this hook, and finds the text attached.
          const text = stringify({ data: result.data });
          Object.defineProperty(result.data, KEPT_TEXT, { value: text });
          // The key holds the query text: it counts too.
          answers.keep(
            key,
            { result: { data: result.data } },
            key.length + text.length,
            requestContext.contextValue.data,
          );
        },
      };
    },
  };
}
