import type { Authenticator } from '../auth/authenticator';
import type { TokenSigner } from '../auth/jwt';
import type { Principal } from '../auth/principal';
import type { RequestContext } from '../context/request-context';
import { createLoaders, type Loaders } from '../loaders/create-loaders';

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
  ) {}

  get loaders(): Loaders {
    this.made ??= createLoaders();
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
  ) {}

  /**
   * The context without waiting, when authentication needs nothing but memory (see
   * Authenticator.authenticateNow); undefined otherwise: call build then.
   */
  buildNow(request: ContextRequest): RequestContext | undefined {
    if (!request.authenticated) return new GatewayRequestContext(request.requestId, null, this.signer);
    const principal = this.authenticator.authenticateNow(request.authorization);
    return principal ? new GatewayRequestContext(request.requestId, principal, this.signer) : undefined;
  }

  async build(request: ContextRequest): Promise<RequestContext> {
    const principal = request.authenticated ? await this.authenticator.authenticate(request.authorization) : null;
    return new GatewayRequestContext(request.requestId, principal, this.signer);
  }
}
