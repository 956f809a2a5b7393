import { trusted } from 'mongoose';
import { Role } from '../../src/auth/role';
import { DefinitionModel } from '../../src/models/definition.model';
import { MemberModel } from '../../src/models/member.model';
import { OpportunityModel } from '../../src/models/opportunity.model';
import { PipelineFactsModel } from '../../src/models/pipeline-facts.model';
import { PipelineModel } from '../../src/models/pipeline.model';
import { PrunedSnapshotModel } from '../../src/models/pruned-snapshot.model';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { readsOf } from '../import/snapshot-reads';
import { MAIN_FIXTURE, toImportBody, type CrmFixture } from './fixtures/crm-fixture';

/**
 * An admin removes a snapshot (DEL /pipelines/snapshots/{id}, removeSnapshot), so a bad import can
 * be undone: over HTTP, every snapshot left reads as before, the removed one answers 404 naming
 * the admin, the latest left is what reads see, and the next import builds on it.
 */

const DAY_MS = 86_400_000;
const NOW = Date.now();
const daysAgo = (days: number) => new Date(NOW - days * DAY_MS).toISOString();
const FUTURE = '2100-01-01T00:00:00.000Z';

let gateway: TestGateway;

beforeAll(async () => {
  // Retention keeps everything here: what is removed, only the admin removes.
  gateway = await startGateway({ env: { RATE_LIMIT: '0', SNAPSHOT_RETENTION_DAYS: '36500' } });
  for (const [path, body] of [
    ['/settings/currencies', { currency: 'EUR' }],
    ['/settings/periods', { period: 'weekly' }],
  ] as const)
    expect((await gateway.request('POST', path, { body })).status).toBe(200);
});
afterAll(async () => {
  await gateway?.stop();
});

/** The fixture with deal 1001's amount moved to `amount`, and 4002 gone when `without4002`. */
function fixture(amount: number, without4002 = false): CrmFixture {
  return {
    ...MAIN_FIXTURE,
    deals: MAIN_FIXTURE.deals
      .filter((deal) => !(without4002 && deal.id === '4002'))
      .map((deal) => (deal.id === '1001' ? { ...deal, amount: String(amount) } : deal)),
  };
}

async function importAt(
  data: CrmFixture,
  snapshotAt: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const response = await gateway.request('POST', '/crm/imports', {
    body: { ...toImportBody(data, snapshotAt), ...extra },
  });
  expect(response.status).toBe(200);
  return response.body.snapshot_id;
}

async function latestId(): Promise<string> {
  const response = await gateway.request('GET', '/pipelines');
  expect(response.status).toBe(200);
  return response.body.snapshot_id;
}

/** Nothing is left of `removed` but its record, and every stored version holds in a snapshot left. */
async function expectOnlyWhatSnapshotsLeftHold(removed: string[]): Promise<void> {
  const seqs = (await SnapshotModel.find({}, { seq: 1 }).lean()).map((s) => s.seq);
  const versions = await OpportunityModel.find({}, { fromSeq: 1, toSeq: 1 }).lean();
  expect(versions.filter((v) => !seqs.some((seq) => v.fromSeq <= seq && seq < v.toSeq))).toEqual(
    [],
  );
  const ofRemoved = { snapshotId: trusted({ $in: removed }) };
  expect(await PipelineModel.countDocuments(ofRemoved)).toBe(0);
  expect(await PipelineFactsModel.countDocuments(ofRemoved)).toBe(0);
  expect(await DefinitionModel.countDocuments(ofRemoved)).toBe(0);
  expect(await SnapshotModel.countDocuments({ _id: trusted({ $in: removed }) })).toBe(0);
  expect(await PrunedSnapshotModel.countDocuments({ done: false })).toBe(0);
}

describe('an admin removing a snapshot', () => {
  const ids: Record<string, string> = {};
  const before = new Map<string, unknown>();

  it('undoes an import dated in 2100: the import after it is the latest again, the removed one answers 404 naming the admin', async () => {
    ids.a = await importAt(fixture(1000), daysAgo(2));
    ids.b = await importAt(fixture(1100), daysAgo(1));
    ids.future = await importAt(fixture(1200), FUTURE, { force: true });
    ids.c = await importAt(fixture(1300, true), new Date(NOW).toISOString());
    // The poisoned history: the snapshot of 2100 hides the import made after it.
    expect(await latestId()).toBe(ids.future);
    for (const id of [ids.a, ids.b, ids.c]) before.set(id, await readsOf(gateway, id));

    // The contract's raw DEL method.
    const removed = await gateway.request('DEL', `/pipelines/snapshots/${ids.future}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({
      message: `Snapshot ${ids.future} removed; the latest snapshot is now ${ids.c} (${new Date(NOW).toISOString()})`,
      success: true,
      statusCode: 200,
      snapshot_id: ids.future,
      created_at: FUTURE,
      latest_snapshot_id: ids.c,
    });
    expect(await latestId()).toBe(ids.c);

    const record = await PrunedSnapshotModel.findById(ids.future).lean();
    expect(record).toMatchObject({ removedBy: 'admin', retentionDays: null, done: true });
    const gone = `Snapshot ${ids.future} (${FUTURE}) was removed by an admin on ${record!.prunedAt.toISOString()}`;
    const read = await gateway.request('GET', '/pipelines', {
      query: { snapshot_id: ids.future },
    });
    expect(read.status).toBe(404);
    expect(read.body.message).toBe(gone);
    const metrics = await gateway.request('GET', '/pipelines/metrics', {
      query: { pipeline_id: 'sales', snapshot_id: ids.future },
    });
    expect(metrics.status).toBe(404);
    expect(metrics.body.status.message).toBe(gone);
    const graphql = await gateway.graphql('query($id: ID) { snapshot(id: $id) { id } }', {
      id: ids.future,
    });
    expect(graphql.body.errors[0]).toMatchObject({
      message: gone,
      extensions: { code: 'NOT_FOUND' },
    });
    const listed = await gateway.graphql('{ snapshots(first: 10) { edges { node { id } } } }');
    expect(listed.body.data.snapshots.edges.map((e: any) => e.node.id)).toEqual([
      ids.c,
      ids.b,
      ids.a,
    ]);

    for (const id of [ids.a, ids.b, ids.c])
      expect({ id, reads: await readsOf(gateway, id) }).toEqual({ id, reads: before.get(id) });
    await expectOnlyWhatSnapshotsLeftHold([ids.future]);

    // Gone already: 404 saying so, with DELETE as well as DEL.
    const again = await gateway.request('DELETE', `/pipelines/snapshots/${ids.future}`);
    expect(again.status).toBe(404);
    expect(again.body.message).toBe(gone);
  });

  it('lets the next import be the latest', async () => {
    ids.d = await importAt(fixture(1400), new Date(NOW + 60_000).toISOString());
    expect(await latestId()).toBe(ids.d);
  });

  it('removes the latest written snapshot over GraphQL; an import of the same data reads as it did, from a new seq', async () => {
    const removedReads = await readsOf(gateway, ids.d);
    const removedSeq = (await SnapshotModel.findById(ids.d).lean())!.seq;
    const { body } = await gateway.graphql(
      'mutation Remove($id: ID!) { removeSnapshot(id: $id) { id createdAt latest { id createdAt } } }',
      { id: ids.d },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.removeSnapshot).toEqual({
      id: ids.d,
      createdAt: new Date(NOW + 60_000).toISOString(),
      latest: { id: ids.c, createdAt: new Date(NOW).toISOString() },
    });
    expect(await latestId()).toBe(ids.c);
    expect({ reads: await readsOf(gateway, ids.c) }).toEqual({ reads: before.get(ids.c) });
    await expectOnlyWhatSnapshotsLeftHold([ids.future, ids.d]);

    // The same data again: not taken for the removed snapshot's, written anew after its seq, and
    // read exactly as the removed one read (its deals compared with what c left open).
    ids.e = await importAt(fixture(1400), new Date(NOW + 60_000).toISOString());
    expect(ids.e).not.toBe(ids.d);
    expect((await SnapshotModel.findById(ids.e).lean())!.seq).toBeGreaterThan(removedSeq);
    expect({ reads: await readsOf(gateway, ids.e) }).toEqual({ reads: removedReads });
    await expectOnlyWhatSnapshotsLeftHold([ids.future, ids.d]);
  });

  it('removes the two latest snapshots; an import then never takes a removed seq, so no closed version holds in it', async () => {
    // c left deal 4002 out: its version from a was closed at c's seq. With c and e gone, the next
    // seq given again would be one that version still spans.
    for (const id of [ids.e, ids.c])
      expect((await gateway.request('DEL', `/pipelines/snapshots/${id}`)).status).toBe(200);
    expect(await latestId()).toBe(ids.b);
    ids.f = await importAt(fixture(1300, true), new Date(NOW).toISOString());
    expect({ reads: await readsOf(gateway, ids.f) }).toEqual({ reads: before.get(ids.c) });
    const highestRemoved = await PrunedSnapshotModel.findOne().sort({ seq: -1 }).lean();
    expect((await SnapshotModel.findById(ids.f).lean())!.seq).toBe(highestRemoved!.seq + 1);
    for (const id of [ids.a, ids.b])
      expect({ id, reads: await readsOf(gateway, id) }).toEqual({ id, reads: before.get(id) });
    await expectOnlyWhatSnapshotsLeftHold([ids.future, ids.c, ids.d, ids.e]);
  });

  it('refuses a member (403), an unknown snapshot (404) and one being imported (409), changing nothing', async () => {
    const member = await MemberModel.findOne({ role: Role.MEMBER }).lean();
    const token = await gateway.tokenFor(String(member!._id));
    const forbidden = await gateway.request('DEL', `/pipelines/snapshots/${ids.f}`, { token });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.message).toBe(
      'Only an admin may remove a snapshot; the caller is a member',
    );
    const graphql = await gateway.graphql(
      'mutation Remove($id: ID!) { removeSnapshot(id: $id) { id } }',
      { id: ids.f },
      token,
    );
    expect(graphql.body.errors[0].extensions.code).toBe('FORBIDDEN');

    const unknown = await gateway.request('DELETE', '/pipelines/snapshots/no-such-snapshot');
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('Snapshot no-such-snapshot not found');

    // An import under way has written its snapshot as pending.
    await SnapshotModel.create({
      _id: 'pending-snapshot',
      seq: 1_000,
      snapshotAt: new Date(NOW),
      importedAt: new Date(NOW),
      status: 'pending',
      importId: 'an-import-under-way',
      sourceHash: 'x',
      counts: { pipelines: 0, stages: 0, deals: 0, owners: 0, teams: 0, membersCreated: 0 },
    });
    try {
      const pending = await gateway.request('DEL', '/pipelines/snapshots/pending-snapshot');
      expect(pending.status).toBe(409);
      expect(pending.body.message).toBe(
        'Snapshot pending-snapshot is being imported: it can be removed once its import has committed',
      );
    } finally {
      await SnapshotModel.deleteOne({ _id: 'pending-snapshot' });
    }
    expect(await latestId()).toBe(ids.f);
  });
});
