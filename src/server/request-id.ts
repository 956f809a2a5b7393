import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** An incoming id is echoed only when it is short, printable and cannot forge log lines. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export const REQUEST_ID_HEADER = 'x-request-id';

/** fastify `genReqId`: the client's `x-request-id` when sane, else a fresh UUID. */
export function requestIdFor(request: IncomingMessage): string {
  const incoming = request.headers[REQUEST_ID_HEADER];
  return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
