import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authenticator } from '../auth/authenticator';
import type { Principal } from '../auth/principal';
import type { DataAccess } from '../data/data-access';
import type { RequestData } from '../data/request-data';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's view of the data (its version counters, read when first needed). */
    data: RequestData;
    /** Who is calling, when the request carries a token that authenticates; null otherwise. */
    principal: Principal | null;
    /** Why a token the request carries did not authenticate (401), or the database failure that stopped it (503). */
    authFailure: Error | null;
    /** The principal's subject, for rate limits and the access log; null when anonymous. */
    tokenSubject: string | null;
  }
}

/**
 * Works out, once per request and before routing, who is calling: the rate limit counts per
 * caller, the access log names them, and the route's context (ContextBuilder) takes the
 * principal from here. Nothing is refused here: a route that needs a caller answers 401 (or 503)
 * with the failure kept on the request, a public route ignores it.
 */
export function registerAuthentication(
  app: FastifyInstance,
  authenticator: Authenticator,
  access: DataAccess,
): void {
  app.decorateRequest('data', null as unknown as RequestData);
  app.decorateRequest('principal', null);
  app.decorateRequest('authFailure', null);
  app.decorateRequest('tokenSubject', null);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    request.data = access.request();
    const authorization = request.headers.authorization;
    if (authorization === undefined) return;
    try {
      request.principal = await authenticator.authenticate(authorization, request.data);
      request.tokenSubject = request.principal.subject;
    } catch (error) {
      request.authFailure = error as Error;
    }
  });
}
