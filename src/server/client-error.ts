import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { FIXED_SECURITY_HEADERS, JSON_CSP } from '../security/security-headers';
import { resumeDelRequest } from './del-method-resume';

interface ClientError extends Error {
  code?: string;
  /** llhttp's reason for a parse error, e.g. "Invalid method encountered". */
  reason?: string;
}

function statusOf(error: ClientError): number {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  if (error.code === 'HPE_HEADER_OVERFLOW') return 431;
  return 400;
}

function messageOf(status: number, error: ClientError): string {
  if (status === 408) return 'The request was not received in time';
  if (status === 431) return 'The request headers are too large';
  // llhttp's reasons name what is wrong with the bytes and nothing about the server.
  return error.code?.startsWith('HPE_') && error.reason
    ? `Malformed HTTP request: ${error.reason}`
    : 'Malformed HTTP request';
}

type HttpSocket = Socket & {
  /** Node's: the answer being written on this connection, if any (the first of pipelined ones). */
  _httpMessage?: NodeJS.EventEmitter | null;
};

/** Calls `then` once every answer owed to requests read before the error has been sent. */
function afterPendingAnswers(socket: HttpSocket, then: () => void): void {
  const pending = socket._httpMessage;
  if (!pending || socket.destroyed) return then();
  // Node hands the connection to the next pipelined answer before this listener runs.
  pending.once('finish', () => afterPendingAnswers(socket, then));
}

/**
 * fastify's `clientErrorHandler`: what happens to a connection whose bytes are not an HTTP request
 * Node can parse. A `DEL` request goes on (del-method-resume.ts). Anything else is answered in the
 * gateway's error envelope with the usual security headers, after the answers still owed to
 * earlier pipelined requests (Node's default would put it in place of the first of them), and the
 * connection is closed: after a parse error nothing further on it can be framed.
 */
export function handleClientError(
  this: FastifyInstance,
  error: ClientError,
  connection: Socket,
): void {
  if (resumeDelRequest(error, connection)) return;
  const socket = connection as HttpSocket;
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = statusOf(error);
  this.log.debug({ code: error.code, status }, 'client error');
  const pending = socket._httpMessage as { headersSent?: boolean } | null | undefined;
  if (status === 408 && pending && !pending.headersSent) {
    // Node's request timeout names the request still being received: the answer owed to it has
    // not started and never will (its handler waits for the rest of the body), so it is this one.
    if (socket.writable) socket.write(errorResponse(status, messageOf(status, error)));
    socket.destroySoon();
    return;
  }
  afterPendingAnswers(socket, () => {
    if (socket.destroyed) return;
    if (socket.writable) socket.write(errorResponse(status, messageOf(status, error)));
    socket.destroySoon();
  });
}

function errorResponse(status: number, message: string): string {
  const body = JSON.stringify({ message, success: false, statusCode: status });
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    ...FIXED_SECURITY_HEADERS,
    'content-security-policy': JSON_CSP,
    'Cache-Control': 'no-store',
    Connection: 'close',
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n${body}`;
}
