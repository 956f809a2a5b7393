import type { Principal } from '../../auth/principal';
import type { AuthenticatedContext } from '../../context/request-context';

/**
 * One WebSocket connection's caller: authenticated at `connection_init` with the same token as
 * an HTTP request, and checked again as the data moves (mount-subscriptions.ts), so a role change
 * counts for the events that follow and a revoked token or a deleted member ends the connection.
 */
export interface LiveConnection {
  /** The `authorization` of connection_init: `Bearer <token>`. */
  readonly authorization: string;
  principal: Principal;
  /** Ends the connection (4403) with `reason`. */
  close(reason: string): void;
}

/** Where a subscription's events come from: the instance's outbox reader (EventsRuntime). */
export interface EventSource {
  subscribe(
    listener: (events: ReadonlyArray<import('../../models/event.model').EventDoc>) => void,
  ): () => void;
}

/** The context of a subscription: a request context for its caller, and the connection. */
export interface SubscriptionContext extends AuthenticatedContext {
  live: LiveConnection;
  source: EventSource;
  /** How often a subscription that reads the database (crmSync) reads it: EVENTS_POLL_MS. */
  pollMs: number;
}
