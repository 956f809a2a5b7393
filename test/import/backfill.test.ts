import type { Principal } from '../../src/auth/principal';
import { Role } from '../../src/auth/role';
import { discardPendingImports } from '../../src/import/discard-import';
import { INCLUDE_PENDING_IMPORTS } from '../../src/import/pending-import-visibility';
import { CrmOwnerLinkModel } from '../../src/models/crm-owner-link.model';
import { MemberModel } from '../../src/models/member.model';
import { OPEN_SEQ, OpportunityModel } from '../../src/models/opportunity.model';
import { opportunitiesOf } from '../helpers/opportunities-of';
import { PipelineFactsModel } from '../../src/models/pipeline-facts.model';
import { PipelineModel } from '../../src/models/pipeline.model';
import { SettingsModel } from '../../src/models/settings.model';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { TeamModel } from '../../src/models/team.model';
import { importCrmData } from '../../src/services/import.service';
import { startTestDatabase, TestDatabase } from './db';
import { fixture } from './fixtures';

const ADMIN: Principal = { subject: 'admin-token', role: Role.ADMIN, memberId: null, teamId: null };
const SNAPSHOT_AT = '2026-02-15T12:00:00Z';

let db: TestDatabase;
beforeAll(async () => {
  db = await startTestDatabase();
});
afterAll(async () => {
  await db?.stop();
});
beforeEach(async () => {
  await db.clear();
});

async function statesOf(snapshotId: string): Promise<Record<string, string>> {
  const opportunities = await opportunitiesOf(snapshotId);
  return Object.fromEntries(opportunities.map((o) => [o.dealId, `${o.outcome}:${o.stageId}`]));
}

describe('backfill', () => {
  it('writes one committed snapshot per past quarter end plus the current one, with reconstructed states', async () => {
    const result = await importCrmData(
      { principal: ADMIN },
      {
        ...fixture('backfill/combined.json'),
        snapshotAt: SNAPSHOT_AT,
        backfill: true,
      },
    );
    const snapshots = await SnapshotModel.find().sort({ snapshotAt: 1 }).lean();
    expect(snapshots.map((s) => [s.snapshotAt.toISOString(), s.status, s.backfilled])).toEqual([
      ['2025-03-31T23:59:59.999Z', 'committed', true],
      ['2025-06-30T23:59:59.999Z', 'committed', true],
      ['2025-09-30T23:59:59.999Z', 'committed', true],
      ['2025-12-31T23:59:59.999Z', 'committed', true],
      ['2026-02-15T12:00:00.000Z', 'committed', false],
    ]);
    expect(new Set(snapshots.map((s) => s.importId)).size).toBe(1);
    expect(result.snapshotIds).toEqual(snapshots.map((s) => s._id));
    expect(result.snapshotId).toBe(snapshots[4]._id);

    const states = await Promise.all(snapshots.map((s) => statesOf(s._id as string)));
    expect(states).toEqual([
      { A: 'open:s1', B: 'open:s1' },
      { A: 'open:s2', B: 'lost:lost', C: 'open:s1' },
      { A: 'won:won', B: 'lost:lost', C: 'open:s1' },
      { A: 'won:won', B: 'lost:lost', C: 'open:s2', D: 'open:s1' },
      { A: 'won:won', B: 'lost:lost', C: 'open:s2', D: 'open:s2' },
    ]);

    // Sub-pipelines follow who owned opportunities at each moment: Yara's appear from Q2 on.
    const links = await CrmOwnerLinkModel.find().lean();
    const yara = links.find((l) => l._id === '202')!.memberId;
    const xavier = links.find((l) => l._id === '201')!.memberId;
    const pipelineIds = async (snapshotId: string) =>
      (await PipelineModel.find({ snapshotId }).lean()).map((p) => p.pipelineId).sort();
    expect(await pipelineIds(snapshots[0]._id as string)).toEqual(
      ['sales', `sales.member.${xavier}`, 'sales.team.t-x'].sort(),
    );
    expect(await pipelineIds(snapshots[1]._id as string)).toEqual(
      [
        'sales',
        `sales.member.${xavier}`,
        `sales.member.${yara}`,
        'sales.team.t-x',
        'sales.team.t-y',
      ].sort(),
    );
    // Facts were built for every snapshot before it was committed.
    for (const s of snapshots) {
      expect(await PipelineFactsModel.find({ snapshotId: s._id }).lean()).toHaveLength(
        (await PipelineModel.find({ snapshotId: s._id }).lean()).length,
      );
    }
  });

  it('follows the configured period unit, and a backfill under another unit is a new import', async () => {
    const input = () => ({
      ...fixture('backfill/combined.json'),
      snapshotAt: SNAPSHOT_AT,
      backfill: true,
    });
    const quarterly = await importCrmData({ principal: ADMIN }, input());
    expect(quarterly.snapshotIds).toHaveLength(5);
    await SettingsModel.create({ _id: 'account', period: 'monthly' });
    const result = await importCrmData({ principal: ADMIN }, input());
    expect(result.reused).toBe(false);
    // January 2025 to January 2026: 13 month ends, then the current snapshot.
    expect(result.snapshotIds).toHaveLength(14);
    const first = await SnapshotModel.findById(result.snapshotIds[0]).lean();
    expect(first?.snapshotAt.toISOString()).toBe('2025-01-31T23:59:59.999Z');
  });
});

describe('discardPendingImports', () => {
  it('removes what a crashed import left: its pending snapshots, their documents and what it created', async () => {
    await TeamModel.create({ _id: 'kept-team', name: 'Kept' });
    const committed = await importCrmData(
      { principal: ADMIN },
      {
        ...fixture('backfill/combined.json'),
        snapshotAt: SNAPSHOT_AT,
      },
    );
    const crashedSeq = (await SnapshotModel.findById(committed.snapshotId).lean())!.seq + 1;
    // A crashed import: pending snapshot, an opportunity, and a member, team and link it recorded.
    await SnapshotModel.create({
      _id: 'crashed-snap',
      seq: crashedSeq,
      snapshotAt: new Date(),
      importedAt: new Date(),
      status: 'pending',
      importId: 'crashed-import',
      sourceHash: 'x',
      counts: { pipelines: 0, stages: 0, deals: 0, owners: 0, teams: 0, membersCreated: 0 },
      created: {
        memberIds: ['crashed-member'],
        teamIds: ['crashed-team'],
        ownerLinkIds: ['crashed-owner'],
      },
    });
    // It started a version of deal 1 and closed the committed one at its seq.
    const before = await opportunitiesOf(committed.snapshotId);
    await OpportunityModel.updateOne({ dealId: before[0].dealId }, { $set: { toSeq: crashedSeq } });
    await OpportunityModel.create({
      _id: `${before[0].dealId}@${crashedSeq}`,
      dealId: before[0].dealId,
      fromSeq: crashedSeq,
      toSeq: OPEN_SEQ,
      definitionId: 'sales',
      stageId: 's1',
      amount: 1,
      outcome: 'open',
    });
    await TeamModel.create({
      _id: 'crashed-team',
      name: 'Crashed',
      pendingImportId: 'crashed-import',
    });
    await MemberModel.create({
      _id: 'crashed-member',
      firstname: 'C',
      lastname: 'M',
      email: 'c@example.com',
      emailLower: 'c@example.com',
      role: Role.MEMBER,
      teamId: 'crashed-team',
      pendingImportId: 'crashed-import',
    });
    await CrmOwnerLinkModel.create({ _id: 'crashed-owner', memberId: 'crashed-member' });

    expect(await discardPendingImports()).toBe(1);
    expect((await SnapshotModel.find().lean()).map((s) => s._id)).toEqual([committed.snapshotId]);
    expect(await OpportunityModel.find({ fromSeq: crashedSeq }).lean()).toEqual([]);
    expect(
      await MemberModel.findById('crashed-member').setOptions(INCLUDE_PENDING_IMPORTS).lean(),
    ).toBeNull();
    expect(
      await TeamModel.findById('crashed-team').setOptions(INCLUDE_PENDING_IMPORTS).lean(),
    ).toBeNull();
    expect(await CrmOwnerLinkModel.findById('crashed-owner').lean()).toBeNull();
    expect(await TeamModel.findById('kept-team').lean()).not.toBeNull();
    expect(await opportunitiesOf(committed.snapshotId)).toEqual(before);
    expect(await OpportunityModel.countDocuments({ toSeq: OPEN_SEQ })).toBe(4);
    expect(await discardPendingImports()).toBe(0);
  });
  it('with a cut-off, keeps a pending import started after it (another gateway may be running it)', async () => {
    const pendingSnapshot = (id: string, seq: number, importedAt: Date) => ({
      _id: id,
      seq,
      snapshotAt: importedAt,
      importedAt,
      status: 'pending' as const,
      importId: `import-${id}`,
      sourceHash: id,
      counts: { pipelines: 0, stages: 0, deals: 0, owners: 0, teams: 0, membersCreated: 0 },
      created: { memberIds: [], teamIds: [], ownerLinkIds: [] },
    });
    const cutOff = new Date('2026-11-01T00:00:00Z');
    await SnapshotModel.create([
      pendingSnapshot('stale', 1, new Date('2026-10-31T23:00:00Z')),
      pendingSnapshot('live', 2, new Date('2026-11-01T01:00:00Z')),
    ]);
    expect(await discardPendingImports({ startedBefore: cutOff })).toBe(1);
    expect((await SnapshotModel.find().lean()).map((s) => s._id)).toEqual(['live']);
  });
});
