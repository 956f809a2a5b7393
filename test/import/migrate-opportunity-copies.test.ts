import {
  OPPORTUNITY_COPIES_COLLECTION,
  migrateOpportunityCopies,
} from '../../src/db/migrate-opportunity-copies';
import { OPEN_SEQ, OpportunityModel } from '../../src/models/opportunity.model';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { seedDemoIfEmpty } from '../../src/seed/seed-demo';
import { startGateway, TestGateway } from '../helpers/gateway';
import { opportunitiesOf } from '../helpers/opportunities-of';
import { messyImport } from './fixtures';
import { readsOf } from './snapshot-reads';

/**
 * A database written when every snapshot stored a copy of every deal (`opportunities`, `_id`
 * `<snapshotId>:<dealId>`) is converted to opportunity versions at start-up, and reads as before.
 */

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway({ env: { RATE_LIMIT: '0' } });
});
afterAll(async () => {
  await gateway?.stop();
});

type Deal = { id: string; archived?: boolean; properties: Record<string, string | null> };

/** Rewrites the database as the full-copy design stored it: copies per snapshot, no versions, no seq. */
async function toCopies(): Promise<void> {
  const copies = gateway.connection.db!.collection(OPPORTUNITY_COPIES_COLLECTION);
  for (const snapshot of await SnapshotModel.find({}, { _id: 1 }).lean()) {
    const rows = await opportunitiesOf(snapshot._id as string);
    await copies.insertMany(
      rows.map((row) => ({
        _id: `${snapshot._id}:${row.dealId}` as never,
        snapshotId: snapshot._id,
        ...row,
      })),
    );
  }
  await OpportunityModel.deleteMany({});
  await gateway.connection
    .db!.collection('pipeline_snapshots')
    .updateMany({}, { $unset: { seq: '' } });
}

describe('start-up conversion of full copies to opportunity versions', () => {
  it('reads every snapshot as before, restarts cleanly after a conversion cut short, and imports on top', async () => {
    const first = await gateway.request('POST', '/crm/imports', {
      body: { ...messyImport(), snapshot_at: '2026-01-05T00:00:00Z' },
    });
    expect(first.status).toBe(200);
    const d1: Deal = {
      id: 'd1',
      properties: {
        ...messyImport().deals[0].results[0].properties,
        dealstage: 'closedwon',
        amount: '3100',
      },
    };
    const second = await gateway.request('POST', '/crm/imports', {
      body: {
        mode: 'incremental',
        deals: { results: [d1, { id: 'd4', archived: true, properties: {} }] },
        snapshot_at: '2026-01-06T00:00:00Z',
      },
    });
    expect(second.status).toBe(200);
    const ids = [first.body.snapshot_id as string, second.body.snapshot_id as string];
    const before = [];
    for (const id of ids) before.push(await readsOf(gateway, id));

    await toCopies();
    // A conversion cut short: some versions and seqs written, the copies still there.
    await OpportunityModel.create({
      _id: 'x@1',
      dealId: 'x',
      fromSeq: 1,
      toSeq: OPEN_SEQ,
      definitionId: 'default',
      stageId: 's',
      amount: 1,
      outcome: 'open',
    });
    await SnapshotModel.updateOne({ _id: ids[1] }, { $set: { seq: 7 } });

    expect(
      await seedDemoIfEmpty(gateway.connection, { shared: false, seedDemo: false }),
    ).toBeNull();
    expect(
      await gateway.connection
        .db!.listCollections({ name: OPPORTUNITY_COPIES_COLLECTION })
        .toArray(),
    ).toEqual([]);
    expect(
      (await SnapshotModel.find({}, { seq: 1 }).sort({ seq: 1 }).lean()).map((s) => [s._id, s.seq]),
    ).toEqual([
      [ids[0], 1],
      [ids[1], 2],
    ]);
    // A version per deal of the first snapshot (8), one more for d1, which changed; d4's is closed.
    expect(first.body.counts.deals).toBe(8);
    expect(await OpportunityModel.countDocuments()).toBe(9);
    expect(await OpportunityModel.countDocuments({ toSeq: 2 })).toBe(2);
    for (let i = 0; i < ids.length; i += 1)
      expect(await readsOf(gateway, ids[i])).toEqual(before[i]);
    // Again: nothing left to convert.
    expect(await migrateOpportunityCopies(gateway.connection)).toBe(0);

    // An incremental import applies its changes to the converted latest snapshot.
    const third = await gateway.request('POST', '/crm/imports', {
      body: {
        mode: 'incremental',
        deals: { results: [{ id: 'd5', archived: true, properties: {} }] },
        snapshot_at: '2026-01-07T00:00:00Z',
      },
    });
    expect(third.status).toBe(200);
    expect(third.body.counts.deals).toBe(second.body.counts.deals - 1);
    expect((await opportunitiesOf(third.body.snapshot_id)).map((o) => o.dealId)).toEqual(
      (await opportunitiesOf(ids[1])).map((o) => o.dealId).filter((id) => id !== 'd5'),
    );

    // Snapshots without copies (none of them held a deal) get a seq all the same.
    await gateway.connection
      .db!.collection('pipeline_snapshots')
      .updateMany({}, { $unset: { seq: '' } });
    await OpportunityModel.deleteMany({});
    expect(await migrateOpportunityCopies(gateway.connection)).toBe(3);
    expect(
      (await SnapshotModel.find({}, { seq: 1 }).sort({ seq: 1 }).lean()).map((s) => s.seq),
    ).toEqual([1, 2, 3]);
    expect(await migrateOpportunityCopies(gateway.connection)).toBe(0);
  });
});
