/** What the services need of the app's events (EventsRuntime and the webhook settings). */
export interface GatewayEvents {
  /** WEBHOOK_ALLOW_PRIVATE_URLS. */
  allowPrivateUrls: boolean;
  /** Reads the outbox and sends due deliveries now rather than at the next poll. */
  nudge(): void;
}
