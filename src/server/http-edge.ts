import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { answerClientError } from './client-error';
import { ConnectionCaps } from './connection-caps';
import { delRequestStart, handOverDel, type ParseError } from './del-method-handover';

/** How long a connection may take at each stage, and how many there may be (config.ts has the variables). */
export interface ConnectionLimits {
  /** REQUEST_TIMEOUT_MS: the gateway's own time-out per request (security/request-timeout.ts); 0: none. */
  requestTimeoutMs: number;
  /** HEADERS_TIMEOUT_MS: from a request's first byte to the end of its headers. */
  headersTimeoutMs: number;
  /** KEEP_ALIVE_TIMEOUT_MS: how long an idle connection is kept for a next request. */
  keepAliveTimeoutMs: number;
  /** MAX_CONNECTIONS: open connections at most; 0: no cap. */
  maxConnections: number;
  /** MAX_CONNECTIONS_PER_ADDRESS: open connections from one client address at most; 0: no cap. */
  maxConnectionsPerAddress: number;
}

/**
 * The listen backlog: connections the kernel completes before the server accepts them (Node's
 * default is 511; the kernel caps it at `net.core.somaxconn`). A flood of connections, such as a
 * slowloris reopening those the caps close, can fill a short queue between two turns of the event
 * loop; a client whose connection finds it full is retried by its TCP stack a second later.
 */
export const LISTEN_BACKLOG = 4096;

/** Node's default request timeout, kept when the gateway has no time-out of its own. */
const NODE_REQUEST_TIMEOUT_MS = 300_000;

/**
 * How often Node looks for connections past the headers or request timeout (its default, 30 s,
 * would let a 10 s timeout run to 40 s). One pass over the connections receiving a request.
 */
const CONNECTIONS_CHECK_MS = 1_000;

/**
 * Node's request timeout: the whole request (headers and body) must arrive within it, else Node
 * raises a client error (answered 408 by answerClientError). It is a backstop: the gateway's own
 * time-out answers a body that is late first, in its envelope with the request id, so Node's
 * leaves room for the slowest headers allowed, then that time-out, then one check.
 */
export function nodeRequestTimeoutMs(limits: ConnectionLimits): number {
  if (limits.requestTimeoutMs <= 0)
    return Math.max(NODE_REQUEST_TIMEOUT_MS, limits.headersTimeoutMs);
  return limits.headersTimeoutMs + limits.requestTimeoutMs + CONNECTIONS_CHECK_MS;
}

export interface HttpEdgeOptions {
  limits: ConnectionLimits;
  /** Where client errors are noted (debug level). */
  log: { debug(fields: object, message: string): void };
}

/**
 * The gateway's HTTP server, for fastify's `serverFactory` and `clientErrorHandler`: a plain
 * http.Server (fastify listens on it, closes it and tracks its connections as usual) that accepts
 * the contract's `DEL` method (del-method-handover.ts), keeps the connection limits (fastify sets
 * no timeouts on a server it did not create; the caps are connection-caps.ts), and answers what
 * Node cannot parse in the gateway's envelope (client-error.ts).
 */
export class HttpEdge {
  /** The answer to the last request read on each connection: the answers still owed end with it. */
  private readonly lastAnswers = new WeakMap<Duplex, http.ServerResponse>();
  /** Connections handed over or being closed after a client error: Node's later errors on them are moot. */
  private readonly settled = new WeakSet<Duplex>();
  private server: http.Server | undefined;

  constructor(private readonly options: HttpEdgeOptions) {}

  createServer(handler: http.RequestListener): http.Server {
    const { limits } = this.options;
    const lastAnswers = this.lastAnswers;
    const server = http.createServer(
      {
        headersTimeout: limits.headersTimeoutMs,
        requestTimeout: nodeRequestTimeoutMs(limits),
        connectionsCheckingInterval: CONNECTIONS_CHECK_MS,
      },
      (request, response) => {
        lastAnswers.set(request.socket, response);
        handler(request, response);
      },
    );
    server.keepAliveTimeout = limits.keepAliveTimeoutMs;
    // The HTTP server's own 'connection' listener (it starts parsing) runs only for a connection
    // the caps admit: one refused costs its accept and close, which matters when a client
    // reopens refused connections as fast as they close.
    const caps = new ConnectionCaps(server, limits);
    const serve = server.listeners('connection') as Array<(connection: Duplex) => void>;
    server.removeAllListeners('connection');
    server.on('connection', (connection: Duplex) => {
      if (!caps.admit(connection)) return;
      for (const listener of serve) listener.call(server, connection);
    });
    this.server = server;
    return server;
  }

  /**
   * fastify's `clientErrorHandler`: a `DEL` request goes on (del-method-handover.ts); any other
   * error is answered (client-error.ts).
   */
  readonly handleClientError = (clientError: Error, connection: Duplex): void => {
    const error: ParseError = clientError;
    if (this.settled.has(connection)) return;
    if (error.code === 'ECONNRESET' || connection.destroyed) return;
    this.settled.add(connection);
    const owed = this.lastAnswers.get(connection);
    const server = this.server;
    if (server && connection instanceof net.Socket) {
      const received = delRequestStart(error);
      if (received) return handOverDel(server, connection, received, owed);
    }
    const status = answerClientError(error, connection, owed);
    this.options.log.debug({ code: error.code, status }, 'client error');
  };
}
