// First, before anything it traces loads: OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set.
import { tracing } from './telemetry/preload';
import 'reflect-metadata';
import { parseCliArgs } from './cli/cli-setup';
import { loadConfig } from './config';
import { connectDatabase } from './db/connect-database';
import { ensureIndexes } from './db/ensure-indexes';
import { explainingDatabaseErrors } from './db/explain-database-error';
import { createProgressReporter } from './import/progress-reporter';
import { seedDemoIfEmpty } from './seed/seed-demo';
import { formatBanner } from './server/banner';
import { buildApp } from './server/build-app';
import { checkPortFree } from './server/check-port';
import { LISTEN_BACKLOG } from './server/http-edge';
import { installGracefulShutdown } from './server/shutdown';
import { START_USAGE } from './server/start-usage';

/**
 * Boots the gateway: configuration, the port checked before anything is written, database (and
 * its start-up step), app, listen. No logic here. Resolves with an exit status when it stops
 * before listening (`--help`: 0, a bad argument: 2).
 */
async function main(): Promise<number | undefined> {
  const args = parseCliArgs(START_USAGE, {});
  if (typeof args === 'number') return args;
  const config = loadConfig();
  await checkPortFree(config.host, config.port);
  const database = await explainingDatabaseErrors(config, async () => {
    const opened = await connectDatabase({ uri: config.mongodbUri, dataDir: config.dataDir });
    await ensureIndexes();
    return opened;
  });
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
    flush: tracing?.shutdown,
  });
  const address = await app.listen({
    port: config.port,
    host: config.host,
    backlog: LISTEN_BACKLOG,
  });
  console.log(formatBanner({ address, config, generatedAdminToken: app.generatedAdminToken }));
  return undefined;
}

main().then(
  (code) => {
    if (code !== undefined) process.exit(code);
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
