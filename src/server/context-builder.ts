import type { Authenticator } from '../auth/authenticator';
import type { TokenSigner } from '../auth/jwt';
import type { RequestContext } from '../context/request-context';
import { createLoaders } from '../loaders/create-loaders';

export interface ContextRequest {
  requestId: string;
  /** The raw `Authorization` header. */
  authorization: string | undefined;
  /** False for routes that need no token (health); the principal is then null. */
  authenticated: boolean;
}

/**
 * The one place a RequestContext is made, for REST routes and GraphQL operations alike:
 * authenticate (unless the route is public), then fresh per-request loaders.
 */
export class ContextBuilder {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly signer: TokenSigner,
  ) {}

  async build(request: ContextRequest): Promise<RequestContext> {
    const principal = request.authenticated ? await this.authenticator.authenticate(request.authorization) : null;
    return { requestId: request.requestId, principal, loaders: createLoaders(), tokenSigner: this.signer };
  }
}
