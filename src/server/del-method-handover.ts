import type http from 'node:http';
import type { Socket } from 'node:net';
import { RewrittenConnection } from './rewritten-connection';
import { whenSent } from './when-sent';

/**
 * The contract's `DEL` method, on Node's documented HTTP server API.
 *
 * Node's parser (llhttp) knows no `DEL` method and refuses it with a `clientError` whose
 * `rawPacket` is the read it stopped in and `bytesParsed` where it stopped: at the space after
 * the method. Connections that never send `DEL` are parsed by Node as usual and pay nothing for
 * it. A connection that does is taken from Node's parser and given to the HTTP server again
 * (`server.emit('connection', …)`) as a RewrittenConnection, which rewrites every `DEL` request
 * on it to DELETE and frames pipelined requests and their bodies (del-method-rewriter.ts).
 */

/** The `clientError` event's error, as Node's HTTP server reports a parse error. */
export interface ParseError extends Error {
  code?: string;
  /** llhttp's reason, e.g. "Invalid method encountered". */
  reason?: string;
  /** Where in `rawPacket` the parser stopped. */
  bytesParsed?: number;
  /** The bytes of the read the parser stopped in. */
  rawPacket?: Buffer;
}

const SPACE = 0x20;
const DEL = Buffer.from('DEL');

/**
 * The bytes of the refused request from its method on, when that method is `DEL`; null for any
 * other error. llhttp stops at the first byte no method it knows can continue with, and the only
 * method with "DEL" in it is DELETE, where it is the start: so "DEL" right before a stop on a
 * space is the whole method.
 *
 * A method cut between two reads, where the refused read holds only its end ("DE" | "L /x"), is
 * refused as any other method: Node read the first part natively, where no JavaScript sees it,
 * and "UN" | "L" (refused as well) cannot be told from it. Once a connection has sent one `DEL`,
 * the rewriter frames it and a later `DEL` may be cut anywhere. Reading every connection through
 * JavaScript to keep the end of each read would cost every request (docs/performance.md, "DEL").
 */
export function delRequestStart(error: ParseError): Buffer | null {
  const { rawPacket: packet, bytesParsed: at } = error;
  if (error.code !== 'HPE_INVALID_METHOD' || !Buffer.isBuffer(packet) || typeof at !== 'number')
    return null;
  if (at < DEL.length || packet[at] !== SPACE) return null;
  return packet.subarray(at - DEL.length, at).equals(DEL) ? packet.subarray(at - DEL.length) : null;
}

/**
 * Takes `socket` from Node's parser, which refused a `DEL` request starting with `received`, and
 * gives the connection to `server` again once `owed` (the answer to the last request read before
 * it, if any) has been sent: pipelined answers keep their order. Until then what the client sends
 * waits in the new connection (it reads no further than its buffer). Node's own listeners for the
 * socket's reads and end go at once; its drain and time-out listeners serve the answers still
 * owed, and go when they are sent.
 */
export function handOverDel(
  server: http.Server,
  socket: Socket,
  received: Buffer,
  owed: http.ServerResponse | undefined,
): void {
  for (const event of ['data', 'end'] as const)
    for (const listener of socket.listeners(event))
      socket.removeListener(event, listener as (...args: unknown[]) => void);
  const servingOwed = (['drain', 'timeout'] as const).map(
    (event) => [event, socket.listeners(event) as Array<(...args: unknown[]) => void>] as const,
  );
  // A 'data' listener: from here on Node reads this socket through JavaScript, into the connection.
  const connection = new RewrittenConnection(socket, received);
  whenSent(owed, () => {
    if (connection.destroyed) return;
    for (const [event, listeners] of servingOwed)
      for (const listener of listeners) socket.removeListener(event, listener);
    // The keep-alive time-out Node set once the owed answers were sent; the server sets its own.
    socket.setTimeout(0);
    server.emit('connection', connection);
  });
}
