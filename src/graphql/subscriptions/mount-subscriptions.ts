import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import {
  getOperationAST,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type GraphQLSchema,
} from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Authenticator } from '../../auth/authenticator';
import type { DataAccess } from '../../data/data-access';
import type { EventsRuntime } from '../../events/events-runtime';
import { UnauthenticatedError } from '../../errors';
import { GRAPHQL_LIMITS, graphqlLimitRules } from '../../security/graphql-limits';
import { checkedVariables } from '../../security/graphql-variables';
import type { ContextBuilder } from '../../server/context-builder';
import type { LiveConnection, SubscriptionContext } from './live-connection';
import { originAllowed } from './origin-check';

/** How often every connection's caller is checked again (a revoked token, a deleted member, a new role). */
const RECHECK_MS = 1_000;
/** The largest message a client may send (a subscribe is a query and its variables). */
const MAX_MESSAGE_BYTES = 64 * 1024;

export interface SubscriptionOptions {
  schema: GraphQLSchema;
  authenticator: Authenticator;
  access: DataAccess;
  contexts: ContextBuilder;
  events: EventsRuntime;
  logger: Pick<Logger, 'warn'>;
  /** Origins besides the gateway's own a browser may open the socket from (CORS_ORIGINS). */
  allowedOrigins: readonly string[];
  /** EVENTS_POLL_MS. */
  pollMs: number;
}

/** How long a closing gateway waits for its WebSocket clients to answer the close. */
const CLOSE_GRACE_MS = 1_000;

/**
 * GraphQL subscriptions over the graphql-transport-ws protocol (graphql-ws with its `ws` server,
 * as Apollo documents it) on the upgrade of `/graphql`. A browser's upgrade is checked by its
 * origin; the caller authenticates in `connection_init` with `{ "authorization": "Bearer <token>" }`
 * exactly as an HTTP request does (refused: 4403), and is checked again every RECHECK_MS through
 * the same data-access caches (a read of the version counters, shared): a role change applies to
 * the events that follow, a revoked token or a deleted member closes the connection. Operations
 * pass the same parse and validation limits, and variable checks, as over HTTP.
 */
export function mountSubscriptions(app: FastifyInstance, options: SubscriptionOptions): void {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const live = new Map<WebSocket, LiveConnection>();

  app.server.on('upgrade', (request, socket, head) => {
    const path = (request.url ?? '').split('?')[0].replace(/\/+$/, '');
    const refuse = (status: string) => {
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    if (path !== '/graphql') return refuse('404 Not Found');
    if (!originAllowed(request, options.allowedOrigins)) return refuse('403 Forbidden');
    sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit('connection', ws, request));
  });

  const server = useServer<{ authorization?: unknown }, { live?: LiveConnection }>(
    {
      schema: options.schema,
      onConnect: async (ctx) => {
        const authorization = ctx.connectionParams?.authorization;
        if (typeof authorization !== 'string') return false;
        try {
          const principal = await options.authenticator.authenticate(
            authorization,
            options.access.request(),
          );
          const socket = ctx.extra.socket;
          const connection: LiveConnection = {
            authorization,
            principal,
            close: (reason) => socket.close(4403, reason.slice(0, 120)),
          };
          ctx.extra.live = connection;
          live.set(socket, connection);
          return true;
        } catch {
          return false;
        }
      },
      onClose: (ctx) => {
        live.delete(ctx.extra.socket);
      },
      onSubscribe: (_ctx, _id, payload) => {
        try {
          const document = parse(payload.query, { maxTokens: GRAPHQL_LIMITS.maxTokens });
          const errors = validate(options.schema, document, [
            ...specifiedRules,
            ...graphqlLimitRules(),
          ]);
          if (errors.length > 0) return errors;
          const operation = getOperationAST(document, payload.operationName);
          if (operation) checkedVariables(options.schema, operation, payload.variables ?? {});
        } catch (error) {
          return [error instanceof GraphQLError ? error : new GraphQLError('Invalid query')];
        }
        return undefined;
      },
      context: (ctx): SubscriptionContext => {
        const connection = ctx.extra.live!;
        return {
          ...options.contexts.detached(connection.principal, `ws-${randomUUID()}`),
          live: connection,
          source: options.events,
          pollMs: options.pollMs,
        };
      },
    },
    sockets,
    12_000,
  );

  const recheck = setInterval(() => {
    for (const connection of live.values()) {
      options.authenticator.authenticate(connection.authorization, options.access.request()).then(
        (principal) => {
          connection.principal = principal;
        },
        (error: unknown) => {
          // Only a refusal ends the connection; a database outage is not the caller's fault.
          if (error instanceof UnauthenticatedError)
            connection.close('Unauthorized: the token no longer authenticates');
          else options.logger.warn({ err: error }, 'subscriptions: re-checking a caller failed');
        },
      );
    }
  }, RECHECK_MS);
  recheck.unref();

  // preClose, not onClose: the server stops only once every connection has ended, upgraded
  // ones too, and onClose runs after that.
  app.addHook('preClose', async () => {
    clearInterval(recheck);
    // dispose() asks every client to go (1001) and waits until all have: one that does not answer
    // within CLOSE_GRACE_MS is cut off, so that a shutdown never waits on a peer.
    const cutOff = setTimeout(() => {
      for (const socket of sockets.clients) socket.terminate();
    }, CLOSE_GRACE_MS);
    await server.dispose();
    clearTimeout(cutOff);
  });
}
