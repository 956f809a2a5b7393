/**
 * Benchmark: what a metrics read costs at 1k and at 100k opportunities. Prints figures; asserts
 * nothing. Run with `npm run bench:metrics`. The read never touches opportunities (facts are
 * precomputed per pipeline and bounded by the days of a year), so the read columns should match.
 */
import 'reflect-metadata';
import mongoose from 'mongoose';
import { SETTINGS_ID, SettingsModel } from '../../src/models/settings.model';
import { getPipelineMetrics } from '../../src/services/metrics/metrics.service';
import { DataAccess } from '../../src/data/data-access';
import { requestContext } from '../pipelines/support/context';
import { startDatabase } from '../pipelines/support/database';
import { seedSnapshot } from '../metrics/support/seed-opportunities';

const READS = 50;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main(): Promise<void> {
  const db = await startDatabase();
  const commands: string[] = [];
  db.onCommand((name, _db, body) => {
    if (!['hello', 'ismaster', 'isMaster', 'ping', 'endSessions'].includes(name))
      commands.push(`${name} ${String(body[name])}`);
  });
  await SettingsModel.create({ _id: SETTINGS_ID, currency: 'EUR', period: 'quarterly' });
  console.log(
    'opportunities | seed s | facts build ms | cold read ms | commands per cold read | warm read ms (median of 50)',
  );
  let day = 1;
  let lastCold: string[] = [];
  for (const count of [1_000, 100_000]) {
    const seeded = performance.now();
    const { snapshotId, buildMs } = await seedSnapshot({
      count,
      members: 20,
      snapshotAt: new Date(Date.UTC(2026, 5, day++)),
    });
    const seedS = (performance.now() - seeded) / 1000;
    const cold: number[] = [];
    let perRead = 0;
    let coldCommands: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      // A new instance's data access: nothing cached yet.
      const fresh = new DataAccess({
        connection: mongoose.connection,
        cacheMaxAgeMs: 5_000,
      });
      await fresh.ready();
      commands.length = 0;
      const t = performance.now();
      await getPipelineMetrics(requestContext(undefined, fresh), {
        pipelineId: 'sales',
        snapshotId,
      });
      cold.push(performance.now() - t);
      perRead = commands.length;
      coldCommands = [...commands];
    }
    const warm: number[] = [];
    for (let i = 0; i < READS; i += 1) {
      const t = performance.now();
      await getPipelineMetrics(requestContext(), { pipelineId: 'sales', snapshotId });
      warm.push(performance.now() - t);
    }
    lastCold = coldCommands;
    console.log(
      `${String(count).padStart(13)} | ${seedS.toFixed(1).padStart(6)} | ${buildMs.toFixed(0).padStart(14)} | ${median(cold).toFixed(2).padStart(12)} | ${String(perRead).padStart(22)} | ${median(warm).toFixed(2)}`,
    );
  }
  console.log(`commands of a cold read at 100k: ${lastCold.join(', ')}`);
  await db.stop();
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
