import http from 'node:http';
import type { Socket } from 'node:net';
import { RewritingSocket } from './rewriting-socket';

/**
 * fastify `serverFactory`: a plain http.Server whose accepted connections go through
 * RewritingSocket first, so `DEL /teams/members HTTP/1.1` reaches the router as DELETE.
 * It remains one server: fastify listens on it, closes it and tracks its connections as usual.
 */
export function createHttpServer(handler: http.RequestListener): http.Server {
  const server = http.createServer(handler);
  const [accept] = server.listeners('connection') as Array<(socket: unknown) => void>;
  if (typeof accept !== 'function') throw new Error('http.Server has no connection listener to wrap');
  server.removeListener('connection', accept);
  server.on('connection', (socket: Socket) => {
    // Connections injected by others (already wrapped) are passed on as they are.
    accept.call(server, socket instanceof RewritingSocket ? socket : new RewritingSocket(socket));
  });
  return server;
}
