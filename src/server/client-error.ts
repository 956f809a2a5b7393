import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { FIXED_SECURITY_HEADERS, JSON_CSP } from '../security/security-headers';
import type { ParseError } from './del-method-handover';
import { whenSent } from './when-sent';

function statusOf(error: ParseError): number {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  if (error.code === 'HPE_HEADER_OVERFLOW') return 431;
  return 400;
}

function messageOf(status: number, error: ParseError): string {
  if (status === 408) return 'The request was not received in time';
  if (status === 431) return 'The request headers are too large';
  // llhttp's reasons name what is wrong with the bytes and nothing about the server.
  return error.code?.startsWith('HPE_') && error.reason
    ? `Malformed HTTP request: ${error.reason}`
    : 'Malformed HTTP request';
}

/**
 * Answers a connection whose bytes Node could not take as a request (a parse error, headers too
 * large, or Node's own request time-out) in the gateway's error envelope with the usual security
 * headers, and closes it: after such an error nothing further on it can be framed. `owed` is the
 * answer to the last request read on the connection, if any:
 * - on a time-out, when that request's body never all arrived and its answer has not started, the
 *   408 is its answer, sent through it (so in its place among pipelined answers; its handler waits
 *   for the rest of the body and would never answer);
 * - otherwise the error's answer follows the answers still owed (Node's default would put it in
 *   place of the first of them).
 */
export function answerClientError(
  error: ParseError,
  connection: Duplex,
  owed: ServerResponse | undefined,
): number {
  const status = statusOf(error);
  const body = JSON.stringify({
    message: messageOf(status, error),
    success: false,
    statusCode: status,
  });
  if (status === 408 && owed && !owed.req.complete && !owed.headersSent) {
    // Connection: close has Node close the connection once this answer is sent.
    owed.writeHead(status, errorHeaders(body)).end(body);
    return status;
  }
  whenSent(owed, () => {
    if (connection.destroyed || !connection.writable) return;
    connection.end(errorResponse(status, body));
    // As net.Socket's destroySoon: closed once the answer has gone, whatever the client does.
    connection.once('finish', () => connection.destroy());
  });
  return status;
}

function errorHeaders(body: string): Record<string, string | number> {
  return {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    ...FIXED_SECURITY_HEADERS,
    'content-security-policy': JSON_CSP,
    'Cache-Control': 'no-store',
    Connection: 'close',
  };
}

function errorResponse(status: number, body: string): string {
  const head = Object.entries(errorHeaders(body))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n${body}`;
}
