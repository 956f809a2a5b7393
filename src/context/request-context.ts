import type { TokenSigner } from '../auth/jwt';
import type { Principal } from '../auth/principal';
import type { DataAccess } from '../data/data-access';
import type { RequestData } from '../data/request-data';
import type { Loaders } from '../loaders/create-loaders';
import type { GatewaySync } from '../sync/gateway-sync';
import type { GatewayEvents } from '../events/gateway-events';

/**
 * Per-request state shared by both transports: the REST adapter and the GraphQL resolvers build
 * the same object, then call the same services with it.
 */
export interface RequestContext {
  /** Echoed as `x-request-id` and quoted in 500 answers. */
  requestId: string;
  /** Null only on routes that need no authentication (health, docs). */
  principal: Principal | null;
  /** Created per request by `createLoaders()`: batching never outlives one request. */
  loaders: Loaders;
  /** The app's data-access layer: every cache that outlives a request is there. */
  access: DataAccess;
  /** This request's view of the data (version counters as of its arrival). */
  data: RequestData;
  /** The app's token signer, for the token service. */
  tokenSigner: TokenSigner;
  /** The app's HubSpot sync (and schedule), for the sync service. */
  sync: GatewaySync;
  /** The app's events (outbox reading, webhook settings), for the webhook and alert services. */
  events: GatewayEvents;
}

/**
 * The context of an authenticated request: every GraphQL operation and every REST route but the
 * public ones. Services take it, so none needs to check that someone is calling.
 */
export interface AuthenticatedContext extends RequestContext {
  principal: Principal;
}
