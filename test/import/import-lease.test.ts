import { acquireImportLease } from '../../src/import/import-lease';
import { ImportLeaseModel } from '../../src/models/import-lease.model';
import { OPEN_SEQ, OpportunityModel } from '../../src/models/opportunity.model';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { startGateway, TestGateway } from '../helpers/gateway';
import { opportunitiesOf } from '../helpers/opportunities-of';
import { messyImport } from './fixtures';

/**
 * One import at a time per database, whichever instance runs it (the import lease), and under the
 * lease the leftovers of an import that stopped are undone before anything is written.
 */

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(async () => {
  await gateway?.stop();
});

describe('the import lease', () => {
  it('answers 409 while another import holds it, writing nothing; an expired lease is taken over and leftovers are undone', async () => {
    const first = await gateway.request('POST', '/crm/imports', {
      body: { ...messyImport(), snapshot_at: '2026-01-05T00:00:00Z' },
    });
    expect(first.status).toBe(200);
    const before = await opportunitiesOf(first.body.snapshot_id);
    expect(await ImportLeaseModel.countDocuments()).toBe(0);

    // Another instance's import, running: it holds the lease and has written a pending snapshot.
    await acquireImportLease('elsewhere');
    const seq = (await SnapshotModel.findById(first.body.snapshot_id).lean())!.seq + 1;
    await SnapshotModel.create({
      _id: 'elsewhere-snap',
      seq,
      snapshotAt: new Date(),
      importedAt: new Date(),
      status: 'pending',
      importId: 'elsewhere-import',
      sourceHash: 'x',
      counts: { pipelines: 0, stages: 0, deals: 0, owners: 0, teams: 0, membersCreated: 0 },
    });
    await OpportunityModel.updateMany({ toSeq: OPEN_SEQ }, { $set: { toSeq: seq } });
    const body = {
      mode: 'incremental',
      deals: { results: [{ id: 'd4', archived: true, properties: {} }] },
      snapshot_at: '2026-01-06T00:00:00Z',
    };
    const refused = await gateway.request('POST', '/crm/imports', { body });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(
      /^Another import \(started \d{4}-\d\d-\d\dT[\d:.]+Z\) is running on this database: try again when it has finished; the same data sent again then answers the snapshot it made, without writing anything twice$/,
    );
    expect(await SnapshotModel.countDocuments()).toBe(2);

    // It stopped without giving the lease back: once expired, the next import takes it and undoes the leftovers.
    await ImportLeaseModel.updateOne({}, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    const next = await gateway.request('POST', '/crm/imports', { body });
    expect(next.status).toBe(200);
    expect(await SnapshotModel.exists({ _id: 'elsewhere-snap' })).toBeNull();
    expect(await opportunitiesOf(first.body.snapshot_id)).toEqual(before);
    expect((await opportunitiesOf(next.body.snapshot_id)).map((o) => o.dealId)).toEqual(
      before.map((o) => o.dealId).filter((id) => id !== 'd4'),
    );
    expect(await ImportLeaseModel.countDocuments()).toBe(0);
  });
});
