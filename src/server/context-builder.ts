import type { FastifyRequest } from 'fastify';
import type { TokenSigner } from '../auth/jwt';
import type { Principal } from '../auth/principal';
import type { AuthenticatedContext, RequestContext } from '../context/request-context';
import type { DataAccess } from '../data/data-access';
import type { RequestData } from '../data/request-data';
import { UnauthenticatedError } from '../errors';
import { createLoaders, type Loaders } from '../loaders/create-loaders';
import type { GatewaySync } from '../sync/gateway-sync';
import type { GatewayEvents } from '../events/gateway-events';

/** A RequestContext whose loaders are made on first use: an answer served whole from the answer cache needs none. */
class GatewayRequestContext implements RequestContext {
  private made: Loaders | undefined;

  constructor(
    readonly requestId: string,
    readonly principal: Principal | null,
    readonly tokenSigner: TokenSigner,
    readonly access: DataAccess,
    readonly data: RequestData,
    readonly sync: GatewaySync,
    readonly events: GatewayEvents,
  ) {}

  get loaders(): Loaders {
    this.made ??= createLoaders(this.access, this.data);
    return this.made;
  }
}

/**
 * The one place a RequestContext is made, for REST routes and GraphQL operations alike, from what
 * the authentication hook found out about the request (authentication.hook.ts).
 */
export class ContextBuilder {
  constructor(
    private readonly signer: TokenSigner,
    private readonly access: DataAccess,
    private readonly sync: GatewaySync,
    private readonly events: GatewayEvents,
  ) {}

  /** The context of a request that needs no caller (its principal, if any, is still there). */
  anyone(request: FastifyRequest): RequestContext {
    return this.make(request, request.principal);
  }

  /** The context of a request that must come from a caller: 401 (or the database's 503) otherwise. */
  authenticated(request: FastifyRequest): AuthenticatedContext {
    if (request.authFailure !== null) throw request.authFailure;
    const principal = request.principal;
    if (principal === null) throw new UnauthenticatedError();
    return this.make(request, principal) as AuthenticatedContext;
  }

  /**
   * The context of work no request carries (what a snapshot's commit derives, a subscription's
   * events): `principal` acting, the data as of now.
   */
  detached(principal: Principal, requestId: string): AuthenticatedContext {
    return new GatewayRequestContext(
      requestId,
      principal,
      this.signer,
      this.access,
      this.access.request(),
      this.sync,
      this.events,
    ) as AuthenticatedContext;
  }

  private make(request: FastifyRequest, principal: Principal | null): RequestContext {
    return new GatewayRequestContext(
      request.id,
      principal,
      this.signer,
      this.access,
      request.data,
      this.sync,
      this.events,
    );
  }
}
