// Internal test helper: a GraphQL subscriber over a real WebSocket with the graphql-ws client,
// as a browser or a service would subscribe.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

export interface Subscriber {
  client: Client;
  /** Items received, in order. */
  items: any[];
  /** Errors the subscription ended with, if any. */
  errors: unknown[];
  completed: boolean;
  /** The close event of the socket, once closed. */
  closed: { code: number; reason: string } | null;
  waitFor(predicate: (items: any[]) => boolean, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Connects with `token` in connection_init and subscribes to `query`. */
export async function subscribe(
  url: string,
  token: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Subscriber> {
  const wsUrl = `${url.replace(/^http/, 'ws')}/graphql`;
  let connected!: () => void;
  let failed!: (error: unknown) => void;
  const ready = new Promise<void>((resolve, reject) => {
    connected = resolve;
    failed = reject;
  });
  const subscriber: Subscriber = {
    client: undefined as unknown as Client,
    items: [],
    errors: [],
    completed: false,
    closed: null,
    async waitFor(predicate, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (!predicate(subscriber.items)) {
        if (Date.now() > until)
          throw new Error(
            `subscriber: condition not met within ${timeoutMs} ms; items: ${JSON.stringify(subscriber.items).slice(0, 2000)}; errors: ${JSON.stringify(subscriber.errors)}; closed: ${JSON.stringify(subscriber.closed)}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async stop() {
      await subscriber.client.dispose();
    },
  };
  subscriber.client = createClient({
    url: wsUrl,
    webSocketImpl: class extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers });
      }
    },
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: false,
    on: {
      connected: () => connected(),
      closed: (event) => {
        const { code, reason } = event as { code: number; reason: string };
        subscriber.closed = { code, reason: String(reason) };
        failed(new Error(`closed ${code} ${reason}`));
      },
    },
  });
  subscriber.client.subscribe(
    { query, variables },
    {
      next: (value) => {
        if (value.errors) subscriber.errors.push(...value.errors);
        else subscriber.items.push(value.data);
      },
      error: (error) => subscriber.errors.push(error),
      complete: () => {
        subscriber.completed = true;
      },
    },
  );
  await ready;
  return subscriber;
}
