import type { FastifyRequest } from 'fastify';
import type { RequestContext } from '../context/request-context';
import type { ContextBuilder } from '../server/context-builder';

/** Apollo context function: the same builder as REST; every GraphQL operation is authenticated. */
export function createGraphQLContext(contexts: ContextBuilder): (request: FastifyRequest) => Promise<RequestContext> {
  return (request) =>
    contexts.build({ requestId: request.id, authorization: request.headers.authorization, authenticated: true });
}
