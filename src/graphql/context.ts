import type { FastifyRequest } from 'fastify';
import type { AuthenticatedContext } from '../context/request-context';
import { ServiceUnavailableError } from '../errors';
import { isDatabaseUnavailable } from '../server/classify-error';
import type { Idempotency } from '../security/idempotency/idempotency';
import type { ContextBuilder } from '../server/context-builder';
import type { ErrorRequestIds } from './error-request-ids';

/**
 * Apollo context function: the same builder as REST; every GraphQL operation is authenticated.
 * An unreachable database while authenticating is a 503, not Apollo's generic context failure.
 * The context is tied to its HTTP request for the mutations' Idempotency-Key plugin.
 */
export function createGraphQLContext(
  contexts: ContextBuilder,
  errorIds: ErrorRequestIds,
  idempotency: Idempotency,
): (request: FastifyRequest) => Promise<AuthenticatedContext> {
  return async (request) => {
    try {
      const context = contexts.authenticated(request);
      idempotency.link(context, request);
      return context;
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw new ServiceUnavailableError();
      errorIds.tag(error, request.id); // for formatError: no plugin hook sees a failed context
      throw error;
    }
  };
}
