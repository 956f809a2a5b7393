import { EmbeddedMongoServer } from './server';
import { publishStoreAccess, resolveStoreAccess } from './standalone/store-access';
import { parseStandaloneOptions, USAGE } from './standalone/standalone-options';
import { formatSettings, STORE_SETTINGS } from '../settings-table';

const NO_AUTH_WARNING = `
WARNING: --no-auth: the store accepts every connection without credentials. Any local user
can read and change all data through it. Use it for local development only.

`;

const HELP = `${USAGE.replace(/^usage/, 'Usage')}

Runs the embedded MongoDB-compatible store on its own, over TCP, for the gateway's MONGODB_URI
(the URI it prints names the gateway's database) or any MongoDB client. Clients authenticate
(SCRAM-SHA-256) unless --no-auth (loopback only, for local development).

Settings (environment variables; the flags win over them):

${formatSettings(STORE_SETTINGS)}`;

/**
 * `npm run db`: the embedded store as a standalone server over TCP (--port/STORE_PORT,
 * --host/STORE_HOST, DATA_DIR). Clients authenticate (SCRAM-SHA-256) unless --no-auth.
 */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  const options = parseStandaloneOptions(argv, process.env);
  const access = resolveStoreAccess(options);
  if (access.kind === 'open') process.stderr.write(NO_AUTH_WARNING);
  const server = await EmbeddedMongoServer.start({
    host: options.host,
    port: options.port,
    dataDir: options.dataDir,
    credential: access.kind === 'open' ? null : access.credential,
  });
  for (const line of publishStoreAccess(options.dataDir, access, server))
    process.stdout.write(`${line}\n`);
  // Last, so whoever waits for this line has everything printed before it.
  process.stdout.write(
    `embedded MongoDB-compatible store listening on ${server.host}:${server.port} (data in ${options.dataDir})\n`,
  );
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
