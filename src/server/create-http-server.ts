import http from 'node:http';
import type { Duplex } from 'node:stream';
import { supportsDelResume, watchReads } from './del-method-resume';
import { DelMethodRewriter } from './del-method-rewriter';

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

/**
 * fastify `serverFactory`: a plain http.Server that accepts `DEL` (see DelMethodMode). It remains
 * one server: fastify listens on it, closes it and tracks its connections as usual.
 */
export function createHttpServer(handler: http.RequestListener, mode: DelMethodMode = defaultDelMethodMode()): http.Server {
  const server = http.createServer(handler);
  if (mode === 'resume') {
    // After the HTTP server's own listener, which gives the connection its parser.
    server.on('connection', watchReads);
  } else {
    // Before the HTTP server's own listener, which starts parsing.
    server.prependListener('connection', rewriteDelMethod);
  }
  return server;
}
