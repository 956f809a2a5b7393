import 'reflect-metadata';
import { loadConfig } from './config';
import { connectDatabase } from './db/connect-database';
import { ensureIndexes } from './db/ensure-indexes';
import { seedDemoIfEmpty } from './seed/seed-demo';
import { buildApp } from './server/build-app';
import { installGracefulShutdown } from './server/shutdown';
import { tuneRuntime } from './server/tune-runtime';

/** Boots the gateway: configuration, database (and its start-up step), app, listen. No logic here. */
async function main(): Promise<void> {
  tuneRuntime();
  const config = loadConfig();
  const database = await connectDatabase({ uri: config.mongodbUri, dataDir: config.dataDir });
  await ensureIndexes();
  const seeded = await seedDemoIfEmpty(database.connection, { ...process.env, SEED_DEMO: String(config.seedDemo) });
  const app = await buildApp({ connection: database.connection, config });
  installGracefulShutdown(app, { closeDatabase: () => database.close(), graceMs: config.shutdownGraceMs });
  const address = await app.listen({ port: config.port, host: config.host });
  if (seeded) console.log('Empty embedded database: loaded the demo company (SEED_DEMO=false to skip).');
  if (app.generatedAdminToken) {
    console.log(`Generated admin token (kept in ${config.dataDir}/admin-token): ${app.generatedAdminToken}`);
  }
  // Last, so whoever waits for this line (people, scripts, tests) has everything printed before it.
  console.log(`Pipeline Gateway listening on ${address} (GraphQL at ${address}/graphql, explorer at ${address}/graphiql)`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
