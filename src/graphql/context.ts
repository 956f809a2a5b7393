import type { FastifyRequest } from 'fastify';
import type { RequestContext } from '../context/request-context';
import { ServiceUnavailableError } from '../errors';
import { isDatabaseUnavailable } from '../server/classify-error';
import type { ContextBuilder } from '../server/context-builder';
import { tagRequestId } from './request-scope';

/**
 * Apollo context function: the same builder as REST; every GraphQL operation is authenticated.
 * An unreachable database while authenticating is a 503, not Apollo's generic context failure.
 */
export function createGraphQLContext(
  contexts: ContextBuilder,
): (request: FastifyRequest) => Promise<RequestContext> {
  return async (request) => {
    try {
      return await contexts.build({
        requestId: request.id,
        authorization: request.headers.authorization,
        authenticated: true,
      });
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw new ServiceUnavailableError();
      tagRequestId(error, request.id); // for formatError: no plugin hook sees a failed context
      throw error;
    }
  };
}
