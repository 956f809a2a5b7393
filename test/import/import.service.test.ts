import type { Principal } from '../../src/auth/principal';
import { Role } from '../../src/auth/role';
import { BadUserInputError, ForbiddenError } from '../../src/errors';
import { CrmOwnerLinkModel } from '../../src/models/crm-owner-link.model';
import { DefinitionModel } from '../../src/models/definition.model';
import { MemberModel } from '../../src/models/member.model';
import { OpportunityModel } from '../../src/models/opportunity.model';
import { PipelineFactsModel } from '../../src/models/pipeline-facts.model';
import { PipelineModel } from '../../src/models/pipeline.model';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { TeamModel } from '../../src/models/team.model';
import { opportunitiesOf } from '../helpers/opportunities-of';
import { importCrmData } from '../../src/services/import.service';
import { MESSY_SKIPPED, fixture, messyImport } from './fixtures';
import { startTestDatabase, TestDatabase } from './db';

const ADMIN: Principal = { subject: 'admin-token', role: Role.ADMIN, memberId: null, teamId: null };
const NOW = new Date('2026-02-15T12:00:00.000Z');

let db: TestDatabase;
beforeAll(async () => {
  db = await startTestDatabase();
});
afterAll(async () => {
  await db?.stop();
});

/** A member who exists before any import, with the e-mail of owner 104 in another case. */
async function seedExistingMember() {
  await TeamModel.create({ _id: 'existing-team', name: 'Existing' });
  return MemberModel.create({
    _id: 'linus-0000',
    firstname: 'Linus (kept)',
    lastname: 'Original',
    email: 'linus@example.com',
    emailLower: 'linus@example.com',
    role: Role.MANAGER,
    teamId: 'existing-team',
  });
}

async function collectionSizes() {
  const [snapshots, definitions, pipelines, opportunities, facts, members, teams, links] =
    await Promise.all([
      SnapshotModel.find().lean(),
      DefinitionModel.find().lean(),
      PipelineModel.find().lean(),
      OpportunityModel.find().lean(),
      PipelineFactsModel.find().lean(),
      MemberModel.find().lean(),
      TeamModel.find().lean(),
      CrmOwnerLinkModel.find().lean(),
    ]);
  return {
    snapshots: snapshots.length,
    definitions: definitions.length,
    pipelines: pipelines.length,
    opportunities: opportunities.length,
    facts: facts.length,
    members: members.length,
    teams: teams.length,
    links: links.length,
  };
}

describe('importCrmData on the messy fixture', () => {
  beforeEach(async () => {
    await db.clear();
    await seedExistingMember();
  });

  it('answers counts and skipped items, and creates members, teams and links', async () => {
    const result = await importCrmData({ principal: ADMIN }, messyImport(), { now: NOW });
    expect(result.counts).toEqual({
      pipelines: 2,
      stages: 10,
      deals: 8,
      owners: 4,
      teams: 3,
      membersCreated: 3,
    });
    expect(result.skipped.map((s) => [s.id, s.reason])).toEqual(MESSY_SKIPPED);
    expect(result.reused).toBe(false);
    expect(result.snapshotIds).toEqual([result.snapshotId]);

    const members = await MemberModel.find().sort({ emailLower: 1 }).lean();
    expect(members.map((m) => [m.email, m.firstname, m.lastname, m.role, m.teamId])).toEqual([
      ['ada@example.com', 'Ada', 'Lovelace', 'member', 't-east'],
      ['alan@example.com', 'Alan', 'Turing', 'member', 'unassigned'],
      ['Grace.Hopper@Example.com', 'Grace', 'Hopper', 'member', 't-west'],
      ['linus@example.com', 'Linus (kept)', 'Original', 'manager', 'existing-team'],
    ]);
    const linus = members.find((m) => m._id === 'linus-0000')!;
    const links = await CrmOwnerLinkModel.find().sort({ _id: 1 }).lean();
    expect(links.map((l) => l._id)).toEqual(['101', '102', '103', '104']);
    expect(links.find((l) => l._id === '104')?.memberId).toBe(linus._id);
    const teams = await TeamModel.find().sort({ _id: 1 }).lean();
    expect(teams.map((t) => [t._id, t.name])).toEqual([
      ['existing-team', 'Existing'],
      ['t-east', 'East'],
      ['t-west', 'West'],
      ['unassigned', 'Unassigned'],
    ]);
  });

  it('stores the snapshot committed, with sorted stages, opportunities and complete, team and member pipelines', async () => {
    const { snapshotId } = await importCrmData({ principal: ADMIN }, messyImport(), { now: NOW });
    const snapshot = await SnapshotModel.findById(snapshotId).lean();
    expect(snapshot?.status).toBe('committed');
    expect(snapshot?.snapshotAt.toISOString()).toBe(NOW.toISOString());

    const renewals = await DefinitionModel.findById(`${snapshotId}:renewals`).lean();
    expect(renewals?.stages.map((s) => [s.id, s.order, s.isClosed, s.probability])).toEqual([
      ['r-open', 0, false, 0.5],
      ['r-nego', 1, false, 0.8],
      ['r-won', 2, true, 1],
      ['r-lost', 3, true, 0],
    ]);

    const ids = await MemberModel.find().lean();
    const memberOf = (email: string) => ids.find((m) => m.emailLower === email)!._id;
    const [ada, grace, alan] = [
      'ada@example.com',
      'grace.hopper@example.com',
      'alan@example.com',
    ].map(memberOf);
    const pipelines = await PipelineModel.find({ snapshotId }).lean();
    const listed = pipelines.map((p) => [p.pipelineId, p.kind, p.isSubPipeline]).sort();
    expect(listed).toEqual(
      [
        ['default', 'complete', false],
        ['default.team.t-east', 'team', true],
        ['default.team.t-west', 'team', true],
        [`default.member.${ada}`, 'member', true],
        [`default.member.${grace}`, 'member', true],
        ['renewals', 'complete', false],
        ['renewals.team.existing-team', 'team', true],
        ['renewals.team.t-west', 'team', true],
        ['renewals.team.unassigned', 'team', true],
        [`renewals.member.${alan}`, 'member', true],
        [`renewals.member.${grace}`, 'member', true],
        ['renewals.member.linus-0000', 'member', true],
      ].sort(),
    );

    const opportunities = await opportunitiesOf(snapshotId);
    expect(
      opportunities.map((o) => [o.dealId, o.stageId, o.amount, o.outcome, o.memberId, o.teamId]),
    ).toEqual([
      ['d1', 'qualifiedtobuy', 3000, 'open', ada, 't-east'],
      ['d10', 'appointmentscheduled', 400, 'open', null, null],
      ['d11', 'decisionmakerboughtin', 750.5, 'open', null, null],
      ['d13', 'r-open', 2500, 'open', grace, 't-west'],
      ['d2', 'closedwon', 5000, 'won', ada, 't-east'],
      ['d3', 'closedlost', 0, 'lost', grace, 't-west'],
      ['d4', 'r-nego', 0, 'open', 'linus-0000', 'existing-team'],
      ['d5', 'r-won', 1200, 'won', alan, 'unassigned'],
    ]);
    // The metrics precomputation ran before commit: one facts document per pipeline.
    expect(await PipelineFactsModel.find({ snapshotId }).lean()).toHaveLength(pipelines.length);
  });

  it('is idempotent: the same data again answers the same snapshot and writes nothing', async () => {
    const first = await importCrmData({ principal: ADMIN }, messyImport(), { now: NOW });
    const before = await collectionSizes();
    const second = await importCrmData({ principal: ADMIN }, messyImport(), {
      now: new Date(NOW.getTime() + 60_000),
    });
    expect(second.reused).toBe(true);
    expect(second.snapshotId).toBe(first.snapshotId);
    expect(second.counts).toEqual(first.counts);
    expect(second.skipped).toEqual(first.skipped);
    expect(await collectionSizes()).toEqual(before);
  });

  it('makes a new snapshot for another snapshot_at, with the same pipeline ids and no new members', async () => {
    const first = await importCrmData({ principal: ADMIN }, messyImport(), { now: NOW });
    const second = await importCrmData(
      { principal: ADMIN },
      { ...messyImport(), snapshotAt: '2026-01-31T23:59:59Z' },
      { now: NOW },
    );
    expect(second.snapshotId).not.toBe(first.snapshotId);
    expect(second.counts.membersCreated).toBe(0);
    expect(second.snapshotAt.toISOString()).toBe('2026-01-31T23:59:59.000Z');
    const idsOf = async (snapshotId: string) =>
      (await PipelineModel.find({ snapshotId }).lean()).map((p) => p.pipelineId).sort();
    expect(await idsOf(second.snapshotId)).toEqual(await idsOf(first.snapshotId));
    expect(await MemberModel.find().lean()).toHaveLength(4);
  });

  it('refuses a non-admin with 403 and writes nothing', async () => {
    const manager: Principal = {
      subject: 'linus-0000',
      role: Role.MANAGER,
      memberId: 'linus-0000',
      teamId: 'existing-team',
    };
    const before = await collectionSizes();
    await expect(importCrmData({ principal: manager }, messyImport())).rejects.toThrow(
      ForbiddenError,
    );
    await expect(importCrmData({ principal: manager }, messyImport())).rejects.toThrow(
      'Only an admin may import CRM data; the caller is a manager',
    );
    expect(await collectionSizes()).toEqual(before);
  });

  it('rejects an invalid document with 400 naming the path, writing nothing', async () => {
    const before = await collectionSizes();
    const error = await importCrmData(
      { principal: ADMIN },
      fixture('invalid/pipeline-without-id.json'),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadUserInputError);
    expect((error as BadUserInputError).status).toBe(400);
    expect((error as BadUserInputError).fieldErrors?.[0].field).toBe('pipelines.results[0].id');
    expect(await collectionSizes()).toEqual(before);
  });

  it('leaves no trace when a write fails midway: snapshots, members, teams and links are removed', async () => {
    const before = await collectionSizes();
    const spy = jest
      .spyOn(OpportunityModel.collection, 'bulkWrite')
      .mockRejectedValueOnce(new Error('disk full (forced)'));
    try {
      await expect(
        importCrmData({ principal: ADMIN }, messyImport(), { now: NOW }),
      ).rejects.toThrow('disk full (forced)');
    } finally {
      spy.mockRestore();
    }
    expect(await collectionSizes()).toEqual(before);
    const linus = await MemberModel.findById('linus-0000').lean();
    expect(linus?.firstname).toBe('Linus (kept)');
    // And the same data imports cleanly afterwards.
    const retry = await importCrmData({ principal: ADMIN }, messyImport(), { now: NOW });
    expect(retry.reused).toBe(false);
    expect(retry.counts.membersCreated).toBe(3);
  });
});
