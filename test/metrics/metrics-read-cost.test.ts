import { calculateObjectSize, type Binary } from 'bson';
import mongoose from 'mongoose';
import { unpackDayBuckets } from '../../src/models/packed-day-buckets';
import { SETTINGS_ID, SettingsModel } from '../../src/models/settings.model';
import { getPipelineMetrics } from '../../src/services/metrics/metrics.service';
import { DataAccess } from '../../src/data/data-access';
import { requestContext } from '../pipelines/support/context';
import { startDatabase, TestDatabase } from '../pipelines/support/database';
import { seedSnapshot } from './support/seed-opportunities';
import { TEST_CACHE_MAX_AGE_MS } from '../helpers/cache-window';

let db: TestDatabase;
const reads: Array<{ name: string; collection: string }> = [];

beforeAll(async () => {
  db = await startDatabase();
  db.onCommand((name, _db, body) => {
    if (name === 'find' || name === 'aggregate' || name === 'count' || name === 'getMore')
      reads.push({ name, collection: String(body[name]) });
  });
  await SettingsModel.create({ _id: SETTINGS_ID, currency: 'EUR', period: 'monthly' });
});
afterAll(async () => db.stop());

/** One metrics read on a cold cache: the commands it sends and the size of what it reads. */
async function measureRead(snapshotId: string, pipelineId: string) {
  // A new instance's data access: nothing cached yet, committed snapshots included.
  const cold = new DataAccess({
    connection: mongoose.connection,
    cacheMaxAgeMs: TEST_CACHE_MAX_AGE_MS,
  });
  await cold.ready();
  reads.length = 0;
  const answer = await getPipelineMetrics(requestContext(undefined, cold), {
    pipelineId,
    snapshotId,
  });
  const sent = reads.map((r) => `${r.name} ${r.collection}`);
  const facts = await mongoose.connection
    .db!.collection('pipeline_facts')
    .findOne({ _id: `${snapshotId}:${pipelineId}` as never });
  return {
    reads: sent,
    factsBytes: calculateObjectSize(facts!),
    days: unpackDayBuckets((facts!.packedDays as Binary).buffer).length,
    values: answer.selection.values.length,
  };
}

describe('the cost of a metrics read', () => {
  it('does not grow with the number of opportunities: no opportunity is read, the facts are bounded by the days of a year', async () => {
    const small = await seedSnapshot({
      count: 1_000,
      members: 4,
      snapshotAt: new Date('2026-06-15T00:00:00Z'),
    });
    const large = await seedSnapshot({
      count: 10_000,
      members: 4,
      snapshotAt: new Date('2026-06-16T00:00:00Z'),
    });
    for (const pipelineId of ['sales', 'sales.member.member-1']) {
      const a = await measureRead(small.snapshotId, pipelineId);
      const b = await measureRead(large.snapshotId, pipelineId);
      expect(a.reads).toEqual(b.reads);
      expect(a.reads.some((r) => r.includes('opportunit'))).toBe(false);
      expect(a.reads).toEqual([
        'find data_versions',
        'find pipeline_snapshots',
        'find pipelines',
        'find pipeline_facts',
        'find settings',
        'find targets',
      ]);
      // one bucket per close day at most: 10× the opportunities, about the same bytes
      expect(b.days).toBeLessThanOrEqual(366);
      expect(b.factsBytes).toBeLessThan(a.factsBytes * 1.5);
      expect(a.values).toBe(6); // no targets: quota and coverage left out
    }
  });
});
