/**
 * Internal (benchmark): the ceiling. A bare `node:http` server answering every request with the
 * JSON it was handed over IPC (the gateway's own `GET /pipelines` answer), serialised per request
 * as any JSON server would. Run in its own process by gateway.bench.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReferenceMessage, ReferenceReady } from './reference-messages';

process.on('message', (message: ReferenceMessage) => {
  if (message.type === 'stop') process.exit(0);
  if (message.type !== 'serve') return;
  const answer = message.body;
  const server = http.createServer((_request, response) => {
    const text = JSON.stringify(answer);
    response.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    response.end(text);
  });
  server.listen(0, '127.0.0.1', () => {
    process.send?.({
      type: 'ready',
      port: (server.address() as AddressInfo).port,
    } satisfies ReferenceReady);
  });
});
