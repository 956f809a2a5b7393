import { EmbeddedMongoServer } from './server';

/** `npm run db`: the embedded store as a standalone process (PORT/--port, DATA_DIR). */
async function main(): Promise<void> {
  const portFlag = process.argv.indexOf('--port');
  const rawPort = portFlag >= 0 ? process.argv[portFlag + 1] : (process.env.PORT ?? '27017');
  const port = Number(rawPort);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`expected a port number 0..65535 in --port/PORT, got ${JSON.stringify(rawPort)}`);
  }
  const dataDir = process.env.DATA_DIR ?? './data';
  const server = await EmbeddedMongoServer.start({ host: process.env.HOST ?? '127.0.0.1', port, dataDir });
  process.stdout.write(`embedded MongoDB-compatible store listening: ${server.uri} (data in ${dataDir})\n`);
  const shutdown = (signal: string): void => {
    process.stdout.write(`${signal}: stopping\n`);
    server.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`stop failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
});
