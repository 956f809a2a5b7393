// Worker-thread entry of the benchmark: runs the embedded server off the main thread.
import { parentPort } from 'node:worker_threads';
import { EmbeddedMongoServer } from '../../src/store/server';

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('embedded-server-worker expects to run in a worker thread');
  const server = await EmbeddedMongoServer.start();
  port.on('message', (message: unknown) => {
    if (message !== 'stop') return;
    void server.stop().then(() => port.postMessage({ stopped: true }));
  });
  port.postMessage({ uri: server.uri });
}

void main();
