import 'reflect-metadata';
import { loadConfig } from './config';
import { connectDatabase } from './db/connect-database';
import { ensureIndexes } from './db/ensure-indexes';
import { createProgressReporter } from './import/progress-reporter';
import { seedDemoIfEmpty } from './seed/seed-demo';
import { formatBanner } from './server/banner';
import { buildApp } from './server/build-app';
import { installGracefulShutdown } from './server/shutdown';

/** Boots the gateway: configuration, database (and its start-up step), app, listen. No logic here. */
async function main(): Promise<void> {
  const config = loadConfig();
  const database = await connectDatabase({ uri: config.mongodbUri, dataDir: config.dataDir });
  await ensureIndexes();
  const progress = createProgressReporter();
  const seeded = await seedDemoIfEmpty(
    database.connection,
    { shared: config.mongodbUri !== undefined, seedDemo: config.seedDemo },
    {
      onStart: () =>
        console.log(
          'Empty embedded database: loading the demo company (SEED_DEMO=false to skip)...',
        ),
      onProgress: process.stderr.isTTY ? progress.report : undefined,
    },
  );
  progress.done();
  if (seeded)
    console.log(
      `Demo company loaded: ${seeded.import.counts.deals} deals, ${seeded.import.snapshotIds.length} snapshots.`,
    );
  const app = await buildApp({
    connection: database.connection,
    config,
  });
  installGracefulShutdown(app, {
    closeDatabase: () => database.close(),
    graceMs: config.shutdownGraceMs,
  });
  const address = await app.listen({ port: config.port, host: config.host });
  console.log(formatBanner({ address, config, generatedAdminToken: app.generatedAdminToken }));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
