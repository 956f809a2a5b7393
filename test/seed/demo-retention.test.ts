import mongoose, { trusted } from 'mongoose';
import { PipelineFactsModel } from '../../src/models/pipeline-facts.model';
import { PipelineModel } from '../../src/models/pipeline.model';
import { PrunedSnapshotModel } from '../../src/models/pruned-snapshot.model';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { seedDemoIfEmpty } from '../../src/seed/seed-demo';
import { importCrmData } from '../../src/services/import.service';
import { opportunitiesOf } from '../helpers/opportunities-of';
import { startTestDatabase, type TestDatabase } from '../import/db';
import { ADMIN } from '../pipelines/support/database';
import { MAIN_FIXTURE, toServiceImport } from '../pipelines/fixtures/crm-fixture';

/**
 * The demo company's snapshots (its backfilled quarter ends and its current one) are never
 * removed by retention, while the snapshots of the data imported after it are.
 */
const NOW = new Date('2026-02-15T12:00:00.000Z');
const DAY_MS = 86_400_000;

let db: TestDatabase;
beforeAll(async () => {
  db = await startTestDatabase();
});
afterAll(async () => db?.stop());

it("keeps every demo snapshot as it read, removing the real imports' older snapshots", async () => {
  await seedDemoIfEmpty(
    mongoose.connection,
    { shared: false, seedDemo: true },
    { now: NOW, deals: 300 },
  );
  const demo = await SnapshotModel.find({ demo: true }, { _id: 1 }).sort({ snapshotAt: 1 }).lean();
  expect(demo.length).toBeGreaterThan(4);
  const demoIds = demo.map((s) => s._id as string);
  const before = new Map<string, { opportunities: unknown; pipelines: number }>();
  for (const id of demoIds)
    before.set(id, {
      opportunities: await opportunitiesOf(id),
      pipelines: await PipelineModel.countDocuments({ snapshotId: id }),
    });

  // Ten daily imports of real data a month later, keeping three days: the demo guard lets the first through.
  for (let day = 0; day < 10; day += 1) {
    const at = new Date(NOW.getTime() + (30 + day) * DAY_MS).toISOString();
    const fixture = {
      ...MAIN_FIXTURE,
      deals: MAIN_FIXTURE.deals.map((d) =>
        d.id === '1001' ? { ...d, amount: String(1000 + day) } : d,
      ),
    };
    await importCrmData({ principal: ADMIN }, toServiceImport(fixture, at), { retentionDays: 3 });
  }

  expect(await PrunedSnapshotModel.countDocuments({})).toBeGreaterThan(0);
  expect(await PrunedSnapshotModel.countDocuments({ _id: trusted({ $in: demoIds }) })).toBe(0);
  for (const id of demoIds) {
    expect({
      id,
      reads: {
        opportunities: await opportunitiesOf(id),
        pipelines: await PipelineModel.countDocuments({ snapshotId: id }),
      },
    }).toEqual({ id, reads: before.get(id) });
    expect(await PipelineFactsModel.countDocuments({ snapshotId: id })).toBe(
      before.get(id)!.pipelines,
    );
  }
}, 120_000);
