import type { ApolloServerPlugin } from '@apollo/server';
import { judgeGraphQLError } from './format-error';

/**
 * Answers 503 (with Retry-After) when an operation failed because the database is unreachable,
 * as REST does; other execution errors keep GraphQL's 200 with `errors`.
 */
export function unavailableStatusPlugin(): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response, errors }) {
          if (errors?.some((error) => judgeGraphQLError(error).kind === 'unavailable')) {
            response.http.status = 503;
            response.http.headers.set('retry-after', '1');
          }
        },
      };
    },
  };
}
