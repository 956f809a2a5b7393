import http from 'node:http';
import type { Duplex } from 'node:stream';
import { supportsDelResume, watchReads } from './del-method-resume';
import { DelMethodRewriter } from './del-method-rewriter';
import { latestBudgetAnswerMs } from '../security/request-timeout';

const REWRITTEN = Symbol('del-method-rewriting');

type Connection = Duplex & { _handle?: { _consumed?: boolean } | null; [REWRITTEN]?: true };

/**
 * How `DEL` requests reach the router as DELETE:
 * - `resume` (the default where Node allows it): llhttp reads every connection natively and a
 *   refused `DEL` is resumed as DELETE (del-method-resume.ts, with handleClientError);
 * - `rewrite`: every byte passes through DelMethodRewriter before the parser (see rewriteDelMethod),
 *   about a fifth slower on a cached answer; for a Node whose parser internals differ.
 */
export type DelMethodMode = 'resume' | 'rewrite';

/**
 * Makes every byte a connection receives pass through DelMethodRewriter before Node's HTTP
 * parser sees it, so `DEL /teams/members HTTP/1.1` reaches the router as DELETE.
 *
 * How: bytes enter a readable stream through `push` (net.Socket's read callback calls it), so
 * the connection's own `push` runs the rewriter first. Node's HTTP server would otherwise have
 * llhttp read a TCP handle natively, where no JavaScript sees the bytes; marking the handle as
 * already consumed keeps it on the stream path (Node checks that mark before consuming). Writes
 * still go straight to the socket. This replaced a Duplex wrapper around the socket, which cost
 * a third of the throughput of a cached answer in stream bookkeeping.
 */
export function rewriteDelMethod(connection: Duplex): void {
  const socket = connection as Connection;
  if (socket[REWRITTEN]) return;
  socket[REWRITTEN] = true;
  if (socket._handle) socket._handle._consumed = true;
  const rewriter = new DelMethodRewriter();
  const push = socket.push;
  socket.push = function pushRewritten(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (!Buffer.isBuffer(chunk)) return push.call(this, chunk, encoding); // end of stream (null)
    let more = true;
    for (const part of rewriter.push(chunk)) more = push.call(this, part) && more;
    return more;
  };
}

/** The mode a server gets unless told otherwise. */
function defaultDelMethodMode(): DelMethodMode {
  return supportsDelResume() ? 'resume' : 'rewrite';
}

/** How long a connection may take at each stage, and how many there may be (config.ts has the variables). */
export interface ConnectionLimits {
  /** REQUEST_TIMEOUT_MS: the gateway's own budget per request (security/request-timeout.ts); 0: none. */
  requestBudgetMs: number;
  /** HEADERS_TIMEOUT_MS: from a request's first byte to the end of its headers. */
  headersTimeoutMs: number;
  /** KEEP_ALIVE_TIMEOUT_MS: how long an idle connection is kept for a next request. */
  keepAliveTimeoutMs: number;
  /** MAX_CONNECTIONS: open connections at most; 0: no cap. */
  maxConnections: number;
}

/** Node's default request timeout, kept when the gateway has no budget of its own. */
const NODE_REQUEST_TIMEOUT_MS = 300_000;

/**
 * How often Node looks for connections past the headers or request timeout (its default, 30 s,
 * would let a 10 s timeout run to 40 s). One pass over the connections receiving a request.
 */
const CONNECTIONS_CHECK_MS = 1_000;

/**
 * Node's request timeout: the whole request (headers and body) must arrive within it, else Node
 * raises a client error (answered 408 by handleClientError). It is a backstop: the gateway's own
 * budget answers a body that is late first, in its envelope with the request id, so Node's must
 * leave room for the slowest headers allowed, then the budget and one sweep, then one check.
 */
export function nodeRequestTimeoutMs(limits: ConnectionLimits): number {
  if (limits.requestBudgetMs <= 0)
    return Math.max(NODE_REQUEST_TIMEOUT_MS, limits.headersTimeoutMs);
  return (
    limits.headersTimeoutMs + latestBudgetAnswerMs(limits.requestBudgetMs) + CONNECTIONS_CHECK_MS
  );
}

export interface HttpServerOptions {
  /**
   * Answers a request before the handler sees it, returning true, or returns false having done
   * nothing (the kept-answer lane, src/rest/kept-answer-lane.ts).
   */
  answerFirst?: (
    request: http.IncomingMessage,
    response: http.ServerResponse,
    handler: http.RequestListener,
  ) => boolean;
  /** How `DEL` is accepted; the fastest this Node allows when omitted. */
  delMethodMode?: DelMethodMode;
  /** Node's defaults (no cap, 60 s headers, 300 s request, 5 s keep-alive) when omitted. */
  limits?: ConnectionLimits;
}

/**
 * fastify `serverFactory`: a plain http.Server that accepts `DEL` (see DelMethodMode) and offers each
 * request to `answerFirst` before fastify's handler. It remains
 * one server: fastify listens on it, closes it and tracks its connections as usual. fastify sets
 * no timeouts on a server it did not create, so the limits are set here. Node closes a connection
 * over MAX_CONNECTIONS as it is accepted, before a byte is read (no answer is possible then).
 */
export function createHttpServer(
  handler: http.RequestListener,
  options: HttpServerOptions = {},
): http.Server {
  const { delMethodMode: mode = defaultDelMethodMode(), limits, answerFirst } = options;
  const listener: http.RequestListener = answerFirst
    ? (request, response) => {
        if (!answerFirst(request, response, handler)) handler(request, response);
      }
    : handler;
  const server = limits
    ? http.createServer(
        {
          headersTimeout: limits.headersTimeoutMs,
          requestTimeout: nodeRequestTimeoutMs(limits),
          connectionsCheckingInterval: CONNECTIONS_CHECK_MS,
        },
        listener,
      )
    : http.createServer(listener);
  if (limits) {
    server.keepAliveTimeout = limits.keepAliveTimeoutMs;
    if (limits.maxConnections > 0) server.maxConnections = limits.maxConnections;
  }
  if (mode === 'resume') {
    // After the HTTP server's own listener, which gives the connection its parser.
    server.on('connection', watchReads);
  } else {
    // Before the HTTP server's own listener, which starts parsing.
    server.prependListener('connection', rewriteDelMethod);
  }
  return server;
}
