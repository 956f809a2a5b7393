import type { TokenSigner } from '../auth/jwt';
import type { Principal } from '../auth/principal';
import type { Loaders } from '../loaders/create-loaders';

/**
 * Per-request state shared by both transports: the REST adapter and the GraphQL resolvers build
 * the same object, then call the same services with it.
 */
export interface RequestContext {
  /** Echoed as `x-request-id` and quoted in 500 answers. */
  requestId: string;
  /** Null only on routes that need no authentication (health, docs). */
  principal: Principal | null;
  /** Created per request by `createLoaders()`: batching and caching never outlive one request. */
  loaders: Loaders;
  /** The app's token signer, for the token service; set by the gateway's context builder. */
  tokenSigner?: TokenSigner;
}
