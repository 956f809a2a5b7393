import type { Authenticator } from '../auth/authenticator';
import type { TokenSigner } from '../auth/jwt';
import type { Principal } from '../auth/principal';
import type { RequestContext } from '../context/request-context';
import type { DataAccess } from '../data/data-access';
import type { RequestData } from '../data/request-data';
import { createLoaders, type Loaders } from '../loaders/create-loaders';
import type { GatewaySync } from '../sync/gateway-sync';

export interface ContextRequest {
  requestId: string;
  /** The raw `Authorization` header. */
  authorization: string | undefined;
  /** False for routes that need no token (health); the principal is then null. */
  authenticated: boolean;
}

/** A RequestContext whose loaders are made on first use: an answer served whole from the answer cache needs none. */
class GatewayRequestContext implements RequestContext {
  private made: Loaders | undefined;

  constructor(
    readonly requestId: string,
    readonly principal: Principal | null,
    readonly tokenSigner: TokenSigner,
    readonly access: DataAccess,
    readonly data: RequestData,
    readonly sync: GatewaySync | undefined,
  ) {}

  get loaders(): Loaders {
    this.made ??= createLoaders(this.access, this.data);
    return this.made;
  }
}

/**
 * The one place a RequestContext is made, for REST routes and GraphQL operations alike:
 * authenticate (unless the route is public), then fresh per-request loaders (made when first used).
 */
export class ContextBuilder {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly signer: TokenSigner,
    private readonly access: DataAccess,
    private readonly sync?: GatewaySync,
  ) {}

  /**
   * The context without waiting, when authentication needs nothing but memory (see
   * Authenticator.authenticateNow); undefined otherwise: call build then. `known`: the request's
   * data, its versions read already (the kept-answer lane after the shared read); by default the
   * versions as of now where they are in this process.
   */
  buildNow(
    request: ContextRequest,
    known: RequestData | undefined = this.access.requestNow(),
  ): RequestContext | undefined {
    const data = known?.view === undefined ? undefined : known;
    if (data === undefined) return undefined;
    if (!request.authenticated)
      return new GatewayRequestContext(
        request.requestId,
        null,
        this.signer,
        this.access,
        data,
        this.sync,
      );
    const principal = this.authenticator.authenticateNow(request.authorization, data);
    return principal
      ? new GatewayRequestContext(
          request.requestId,
          principal,
          this.signer,
          this.access,
          data,
          this.sync,
        )
      : undefined;
  }

  /** Whether the caller of `authorization` is known from memory (a member token verified before). */
  knowsCaller(authorization: string | undefined): boolean {
    return this.authenticator.knowsCaller(authorization);
  }

  async build(request: ContextRequest): Promise<RequestContext> {
    const data = this.access.request();
    // Members are read through DataAccess's cache, which notes the read itself.
    const principal = request.authenticated
      ? await this.authenticator.authenticate(request.authorization, data)
      : null;
    return new GatewayRequestContext(
      request.requestId,
      principal,
      this.signer,
      this.access,
      data,
      this.sync,
    );
  }
}
