import { SnapshotModel } from '../../src/models/snapshot.model';
import { PipelineFactsModel } from '../../src/models/pipeline-facts.model';
import { SnapshotCache } from '../../src/data/snapshot-cache';
import { RequestData } from '../../src/data/request-data';
import { countersOf } from '../../src/data/scopes';
import { seedSnapshot } from '../metrics/support/seed-opportunities';
import { startDatabase, TestDatabase } from './support/database';

let db: TestDatabase;
let snapshotCache = new SnapshotCache();
const ids: string[] = [];
/** A request's data under one view: no snapshot is removed while these tests run. */
const data = new RequestData(async () => ({ id: 1, versions: countersOf(undefined) }));
const facts = (snapshotId: string, pipelines: string[]) =>
  snapshotCache.facts(
    data,
    pipelines.map((p) => [snapshotId, p] as const),
  );
const MEMBER_PIPELINES = [
  'sales',
  'sales.member.member-1',
  'sales.member.member-2',
  'sales.member.member-3',
];

beforeAll(async () => {
  db = await startDatabase();
  for (let i = 0; i < 3; i += 1) {
    ids.push(
      (
        await seedSnapshot({
          count: 40,
          members: 3,
          snapshotAt: new Date(Date.UTC(2026, 2, 1 + i)),
        })
      ).snapshotId,
    );
  }
});
afterAll(async () => db.stop());

describe('the committed-snapshot cache', () => {
  it('reads a committed snapshot once, then answers from memory', async () => {
    snapshotCache = new SnapshotCache();
    db.resetCommands();
    const first = await snapshotCache.definitions(data, ids[0]);
    await snapshotCache.definitions(data, ids[0]);
    await facts(ids[0], ['sales', 'sales']);
    await facts(ids[0], ['sales']);
    expect(first.map((d) => d.id)).toEqual(['sales']);
    expect(db.commands).toEqual(['find', 'find', 'find']); // snapshot, definitions, facts
  });

  it('reads facts once for requests missing them together, and keeps an absent pipeline as null', async () => {
    snapshotCache = new SnapshotCache();
    await snapshotCache.snapshots(data, [ids[0]]);
    db.resetCommands();
    const together = await Promise.all([
      facts(ids[0], ['sales', 'sales.member.nobody']),
      facts(ids[0], ['sales.member.nobody', 'sales']),
      facts(ids[0], ['sales']),
    ]);
    expect(together[0][0]).toBe(together[1][1]);
    expect(together[2][0]).toBe(together[0][0]);
    expect(together[0][1]).toBeNull();
    expect(db.commands).toEqual(['find']);
    await facts(ids[0], ['sales.member.nobody']);
    expect(db.commands).toEqual(['find']);
  });

  it('never caches a pending snapshot, and answers null for a pipeline the snapshot lacks', async () => {
    snapshotCache = new SnapshotCache();
    await SnapshotModel.updateOne({ _id: ids[2] }, { $set: { status: 'pending' } });
    expect(await snapshotCache.snapshots(data, [ids[2], ids[1]])).toEqual([
      null,
      expect.objectContaining({ id: ids[1] }),
    ]);
    await expect(snapshotCache.definitions(data, ids[2])).rejects.toThrow(
      `snapshot ${ids[2]} is not committed`,
    );
    await SnapshotModel.updateOne({ _id: ids[2] }, { $set: { status: 'committed' } });
    expect(await facts(ids[1], ['sales.member.nobody', 'sales'])).toEqual([
      null,
      expect.objectContaining({ pipelineId: 'sales' }),
    ]);
  });

  it('keeps at most the configured number of snapshots, dropping the least recently used', async () => {
    snapshotCache = new SnapshotCache({ snapshots: 2, facts: 100 });
    await snapshotCache.snapshots(data, [ids[0]]);
    await snapshotCache.snapshots(data, [ids[1]]);
    await snapshotCache.snapshots(data, [ids[0]]); // ids[0] used again: ids[1] is now the oldest
    await snapshotCache.snapshots(data, [ids[2]]);
    expect(snapshotCache.size().snapshots).toBe(2);
    db.resetCommands();
    await snapshotCache.snapshots(data, [ids[0], ids[2]]);
    expect(db.commands).toEqual([]);
    await snapshotCache.snapshots(data, [ids[1]]);
    expect(db.commands).toEqual(['find']);
  });

  it('bounds the facts kept over all snapshots, never evicting the snapshot being read', async () => {
    snapshotCache = new SnapshotCache({ snapshots: 10, facts: 3 });
    const first = await facts(ids[0], MEMBER_PIPELINES);
    expect(first.map((f) => f?.pipelineId)).toEqual(MEMBER_PIPELINES);
    expect(snapshotCache.size()).toEqual({ snapshots: 1, facts: 4, deals: 0 });
    await facts(ids[1], ['sales']);
    expect(snapshotCache.size()).toEqual({ snapshots: 1, facts: 1, deals: 0 });
    // a batch larger than the cache still answers every key
    snapshotCache = new SnapshotCache({ snapshots: 1, facts: 1 });
    const mixed = await snapshotCache.facts(data, [
      [ids[0], 'sales'],
      [ids[1], 'sales'],
      [ids[2], 'sales'],
    ]);
    expect(mixed.map((f) => f?.snapshotId)).toEqual(ids);
  });

  it('reads facts written before day buckets were packed (a `days` array) as it reads packed ones', async () => {
    snapshotCache = new SnapshotCache();
    const [packed] = await facts(ids[1], ['sales']);
    expect(packed!.days.length).toBeGreaterThan(0);
    const id = `${ids[1]}:sales`;
    await PipelineFactsModel.collection.updateOne(
      { _id: id as never },
      { $set: { days: packed!.days }, $unset: { packedDays: '' } },
    );
    try {
      snapshotCache = new SnapshotCache();
      expect(await facts(ids[1], ['sales'])).toEqual([packed]);
    } finally {
      snapshotCache = new SnapshotCache();
    }
  });
});
