import type http from 'node:http';
import type { Socket } from 'node:net';

/**
 * The contract's `DEL` method on Node's own parser, without putting JavaScript between every
 * connection and the parser.
 *
 * Node's HTTP server lets llhttp read each connection natively. llhttp knows no `DEL` method,
 * and rewriting the bytes before it sees them (del-method-rewriter.ts) means reading every request
 * of every connection through a JavaScript stream, which cost about a fifth of the throughput of
 * a cached answer. So the parser keeps reading natively, and a `DEL` is dealt with when llhttp
 * refuses it: the parse error says where it stopped (the space after `DEL`), and the request
 * resumes on the same parser as `DELETE` followed by the rest of the bytes. The connection's state
 * in Node (responses still owed to earlier pipelined requests and their order, timeouts,
 * keep-alive) is untouched, and a later `DEL` on the connection is handled the same way.
 *
 * This uses parts of Node's HTTP server that are not public API (the parser on `socket.parser`,
 * its `initialize`/`execute`/`getCurrentBuffer`, its callback slots and the parse error's
 * `rawPacket`/`bytesParsed`), so `supportsDelResume` checks them once; without them the server
 * rewrites bytes instead. They are the same on every Node this gateway supports (20, 22, 24).
 */

interface ParseError extends Error {
  code?: string;
  bytesParsed?: number;
  rawPacket?: Buffer;
}

interface NativeParser {
  initialize(
    type: number,
    resource: object,
    maxHeaderSize: number,
    lenient: number,
    connections?: object,
  ): void;
  execute(data: Buffer): number | ParseError;
  getCurrentBuffer(): Buffer;
  /** Set by Node when llhttp reads the socket natively. */
  _consumed?: boolean;
  /** True from the first byte of a request until its head is complete (see trackHeads). */
  [IN_HEAD]?: boolean;
  /** Set once trackHeads has hooked this parser. */
  [TRACKED]?: boolean;
  [callback: number]: unknown;
}

interface ParserStatics {
  REQUEST: number;
  kOnMessageBegin: number;
  kOnHeadersComplete: number;
  kOnExecute: number;
  kLenientAll: number;
  kLenientNone: number;
  prototype: object;
}

type HttpSocket = Socket & {
  parser?: NativeParser | null;
  /** Node's own mark: the server paused reading until pipelined responses drain. */
  _paused?: boolean;
  [TAIL]?: Buffer;
};

/** Options Node keeps on the server (set through http.createServer's options). */
type HttpServer = http.Server & { maxHeaderSize?: number; insecureHTTPParser?: boolean };

const TAIL = Symbol('last-bytes-read');
// Node pools parsers for the whole process, so the marks a parser carries must mean the same to
// every copy of this module (a test runner loads one per test file): registered symbols.
const IN_HEAD = Symbol.for('pipeline-gateway.in-request-head');
const TRACKED = Symbol.for('pipeline-gateway.request-heads-tracked');
const SPACE = 0x20;
const DEL = Buffer.from('DEL');
const DELETE = Buffer.from('DELETE');
const EMPTY = Buffer.alloc(0);

function loadParserStatics(): ParserStatics | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { HTTPParser } = require('node:_http_common') as { HTTPParser?: ParserStatics };
    if (!HTTPParser) return null;
    const methods = ['initialize', 'execute', 'getCurrentBuffer'] as const;
    const numbers = [
      HTTPParser.REQUEST,
      HTTPParser.kOnMessageBegin,
      HTTPParser.kOnHeadersComplete,
      HTTPParser.kOnExecute,
      HTTPParser.kLenientAll,
      HTTPParser.kLenientNone,
    ];
    if (
      !methods.every(
        (name) => typeof (HTTPParser.prototype as Record<string, unknown>)[name] === 'function',
      )
    )
      return null;
    return numbers.every((n) => Number.isInteger(n)) ? HTTPParser : null;
  } catch {
    return null;
  }
}

const HTTPParser = loadParserStatics();

/** Whether this Node has the parser internals resuming needs. */
export function supportsDelResume(): boolean {
  return HTTPParser !== null;
}

/**
 * Where the `DEL` request's bytes continue (from the space after the method), or null when the
 * error is anything else. `before` holds the last bytes read before `packet`: a method split
 * across two reads (pipelined requests) has its start there.
 */
export function restAfterDel(
  packet: Buffer,
  at: number,
  before: Buffer | undefined,
): Buffer | null {
  if (packet[at] !== SPACE) return null;
  // llhttp stops at the first byte no method can continue with; the only method with "DEL" in it is
  // DELETE, where it is the start, so three bytes "DEL" right before the stop are the whole method.
  let method: Buffer;
  if (at >= 3) method = packet.subarray(at - 3, at);
  else if (before) method = Buffer.concat([before, packet.subarray(0, at)]).subarray(-3);
  else return null; // not known: refused as any unknown method, never guessed
  return method.equals(DEL) ? packet.subarray(at) : null;
}

/**
 * For fastify's `clientErrorHandler`: takes over a parse error that is a `DEL` request and
 * returns true; returns false for every other error, which the caller answers.
 */
export function resumeDelRequest(error: ParseError, connection: Socket): boolean {
  const socket = connection as HttpSocket;
  const parser = socket.parser;
  if (!HTTPParser || !parser || error.code !== 'HPE_INVALID_METHOD') return false;
  if (typeof error.bytesParsed !== 'number' || !Buffer.isBuffer(error.rawPacket)) return false;
  // The bytes before this read are only known on the native path, where watchReads keeps them.
  const rest = restAfterDel(
    error.rawPacket,
    error.bytesParsed,
    parser._consumed ? socket[TAIL] : undefined,
  );
  if (!rest) return false;
  // Not now: this runs inside the parser's own callback, which must return before it parses again.
  // Nothing else is read before the next tick, so no bytes can overtake these.
  process.nextTick(resumeWhenReading, socket, parser, Buffer.concat([DELETE, rest]));
  return true;
}

function resumeWhenReading(socket: HttpSocket, parser: NativeParser, bytes: Buffer): void {
  if (socket.destroyed || socket.parser !== parser) return;
  // Node paused reading until earlier responses drain; it resumes the parser before 'resume'.
  if (socket._paused) socket.once('resume', () => resumeWhenReading(socket, parser, bytes));
  else resume(socket, parser, bytes);
}

function resume(socket: HttpSocket, parser: NativeParser, bytes: Buffer): void {
  const statics = HTTPParser as ParserStatics;
  const server = (socket as Socket & { server?: HttpServer }).server;
  for (;;) {
    // A parser that refused a method stays refused: start it afresh, as Node does for a new connection.
    parser.initialize(
      statics.REQUEST,
      { type: 'HTTPINCOMINGMESSAGE', socket },
      server?.maxHeaderSize ?? 0,
      lenientFlags(server),
      connectionsOf(server),
    );
    const result = parser.execute(bytes);
    const rest =
      typeof result === 'number' ? null : restAfterDel(bytes, result.bytesParsed ?? -1, undefined);
    if (rest) {
      bytes = Buffer.concat([DELETE, rest]); // another DEL pipelined behind the first
      continue;
    }
    if (typeof result === 'number') socket[TAIL] = tailAfter(parser, socket[TAIL], bytes);
    // Node's own follow-up for what was parsed: an error answered by the client error handler,
    // pausing when responses pile up.
    (parser[statics.kOnExecute] as (result: number | ParseError) => void)(result);
    return;
  }
}

function lenientFlags(server: HttpServer | undefined): number {
  const statics = HTTPParser as ParserStatics;
  // As Node decides for a new connection: the server's option, else the process-wide flag.
  const insecure =
    server?.insecureHTTPParser ??
    [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].includes(
      '--insecure-http-parser',
    );
  return insecure ? statics.kLenientAll : statics.kLenientNone;
}

/** The server's connection list (for its header and request timeouts, and closing idle connections). */
function connectionsOf(server: http.Server | undefined): object | undefined {
  if (!server) return undefined;
  const key = Object.getOwnPropertySymbols(server).find(
    (symbol) => symbol.description === 'http.server.connections',
  );
  return key ? ((server as unknown as Record<symbol, object>)[key] ?? undefined) : undefined;
}

/**
 * What the next read needs to know of this one: its last three bytes when it ended inside a
 * request head (where a method may be cut), nothing otherwise. Most reads end between requests,
 * so most reads copy nothing.
 */
function tailAfter(
  parser: NativeParser,
  before: Buffer | undefined,
  read: Buffer,
): Buffer | undefined {
  if (parser[IN_HEAD] !== true) return undefined;
  if (read.length >= 3) return Buffer.from(read.subarray(read.length - 3));
  return Buffer.concat([before ?? EMPTY, read]).subarray(-3);
}

/**
 * Whether a parser is inside a request head, from the callbacks llhttp makes at the first byte of a
 * message and at the end of its head. Node pools parsers across connections: it clears the
 * message-begin slot when a parser goes back to the pool, so that is set for each connection, but
 * keeps the headers-complete one, so that is wrapped once per parser (wrapping it again on reuse
 * would stack a wrapper per connection the parser has served).
 */
function trackHeads(parser: NativeParser): void {
  const statics = HTTPParser as ParserStatics;
  parser[IN_HEAD] = false;
  parser[statics.kOnMessageBegin] = onMessageBegin;
  if (parser[TRACKED] === true) return;
  parser[TRACKED] = true;
  const onHeadersComplete = parser[statics.kOnHeadersComplete] as (...args: unknown[]) => unknown;
  parser[statics.kOnHeadersComplete] = function headEnded(this: NativeParser): unknown {
    this[IN_HEAD] = false;
    // `arguments` as is: V8 passes it on without copying it into an array.
    // eslint-disable-next-line prefer-rest-params -- this file is replaced by the public-API edge
    return onHeadersComplete.apply(this, arguments as unknown as unknown[]);
  };
}

function onMessageBegin(this: NativeParser): void {
  this[IN_HEAD] = true;
}

/**
 * A 'connection' listener placed after Node's own: notes how each native read ended, so a `DEL`
 * split between two reads is still recognised (see restAfterDel).
 */
export function watchReads(connection: Socket): void {
  const socket = connection as HttpSocket;
  const parser = socket.parser;
  if (!HTTPParser || !parser) return;
  trackHeads(parser);
  const onExecute = parser[HTTPParser.kOnExecute] as (result: number | ParseError) => void;
  parser[HTTPParser.kOnExecute] = function noteTail(
    this: unknown,
    result: number | ParseError,
  ): void {
    // The read's bytes are copied out of the parser only when it ended inside a head.
    if (typeof result === 'number')
      socket[TAIL] =
        parser[IN_HEAD] === true
          ? tailAfter(parser, socket[TAIL], parser.getCurrentBuffer())
          : undefined;
    onExecute.call(this, result);
  };
}
