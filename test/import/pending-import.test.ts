import mongoose, { trusted } from 'mongoose';
import type { Principal } from '../../src/auth/principal';
import { Role } from '../../src/auth/role';
import { discardPendingImports } from '../../src/import/discard-import';
import { INCLUDE_PENDING_IMPORTS } from '../../src/import/pending-import-visibility';
import { CrmOwnerLinkModel } from '../../src/models/crm-owner-link.model';
import { MemberModel } from '../../src/models/member.model';
import { OpportunityModel } from '../../src/models/opportunity.model';
import { opportunitiesOf } from '../helpers/opportunities-of';
import { TargetModel } from '../../src/models/target.model';
import { TeamModel } from '../../src/models/team.model';
import { importCrmData, type CrmImportResult } from '../../src/services/import.service';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { messyImport } from './fixtures';

const ADMIN: Principal = { subject: 'admin-token', role: Role.ADMIN, memberId: null, teamId: null };

/** Members and teams the messy import creates (the existing team and member are not among them). */
const IMPORTED_TEAMS = ['t-east', 't-west', 'unassigned'];
const IMPORTED_EMAILS = ['Grace.Hopper@Example.com', 'ada@example.com', 'alan@example.com'];

const MEMBERS_WITH_TEAMS = `{ members(first: 100) { edges { node { id email team { id } } } } }`;
const TEAMS = `{ teams { id members { edges { node { id } } } } }`;

let gw: TestGateway;
let managerToken: string;

beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.stop();
});

beforeEach(async () => {
  // Every collection, snapshots too: the same data imported again would be answered from the last one.
  for (const name of mongoose.modelNames())
    await mongoose.model(name).deleteMany({}).setOptions(INCLUDE_PENDING_IMPORTS);
  await TeamModel.create({ _id: 'existing-team', name: 'Existing' });
  await MemberModel.create({
    _id: 'linus-0000',
    firstname: 'Linus',
    lastname: 'Kept',
    email: 'linus@example.com',
    emailLower: 'linus@example.com',
    role: Role.MANAGER,
    teamId: 'existing-team',
  });
  managerToken = await gw.tokenFor('linus-0000');
});

/**
 * An import held open while it writes its first opportunities (its members and teams exist by
 * then): `entered` resolves once it waits; `release()` lets it go on, `fail()` makes that write fail.
 */
function holdImport() {
  const versions = OpportunityModel.collection;
  const original = versions.bulkWrite.bind(versions);
  let signalEntered!: () => void;
  const entered = new Promise<void>((resolve) => (signalEntered = resolve));
  let settle!: (outcome: 'go' | 'fail') => void;
  const gate = new Promise<'go' | 'fail'>((resolve) => (settle = resolve));
  const spy = jest.spyOn(versions, 'bulkWrite').mockImplementationOnce((async (
    ...args: unknown[]
  ) => {
    signalEntered();
    if ((await gate) === 'fail') throw new Error('disk full (forced)');
    return (original as (...a: unknown[]) => unknown)(...args);
  }) as never);
  const running: Promise<CrmImportResult> = importCrmData({ principal: ADMIN }, messyImport());
  running.catch(() => undefined);
  return {
    /** Resolves once the import waits; rejects if it ended without getting there. */
    entered: Promise.race([
      entered,
      running.then(() => Promise.reject(new Error('the import ended without being held'))),
    ]),
    running,
    release: () => settle('go'),
    fail: () => settle('fail'),
    /** Fails the import unless it was let go, waits for it to end, and puts bulkWrite back. */
    async finish() {
      settle('fail');
      await running.catch(() => undefined);
      spy.mockRestore();
    },
  };
}

async function visibleTeamIds(token?: string): Promise<string[]> {
  const res = await gw.request('GET', '/teams', { token });
  expect(res.status).toBe(200);
  return res.body.teams.map((t: { team_id: string }) => t.team_id).sort();
}

async function visibleEmails(token?: string): Promise<string[]> {
  const res = await gw.request('GET', '/teams/members', { token, query: { limit: 100 } });
  expect(res.status).toBe(200);
  return res.body.members.map((m: { email: string }) => m.email).sort();
}

/** `members { team }` answers without errors, for the admin and for a manager. */
async function expectMembersWithTeamsAnswer(): Promise<string[]> {
  let emails: string[] = [];
  for (const token of [undefined, managerToken]) {
    const res = await gw.graphql(MEMBERS_WITH_TEAMS, undefined, token);
    expect(res.body.errors).toBeUndefined();
    expect(res.status).toBe(200);
    emails = res.body.data.members.edges
      .map((e: { node: { email: string } }) => e.node.email)
      .sort();
  }
  return emails;
}

describe('an import that has not committed', () => {
  it('shows none of its members and teams to any caller, on REST and GraphQL, until it commits', async () => {
    const held = holdImport();
    try {
      await held.entered;
      for (const token of [undefined, managerToken]) {
        expect(await visibleTeamIds(token)).toEqual(['existing-team']);
        expect(await visibleEmails(token)).toEqual(['linus@example.com']);
      }
      expect(await expectMembersWithTeamsAnswer()).toEqual(['linus@example.com']);
      const teams = await gw.graphql(TEAMS);
      expect(teams.body.data.teams.map((t: { id: string }) => t.id)).toEqual(['existing-team']);
      const ada = await MemberModel.findOne({ emailLower: 'ada@example.com' })
        .setOptions(INCLUDE_PENDING_IMPORTS)
        .lean();
      expect(ada).not.toBeNull();
      expect((await gw.request('GET', `/teams/members/${ada!._id}`)).status).toBe(404);
      expect((await gw.request('GET', '/teams/t-east')).status).toBe(404);
      const one = await gw.graphql(`query($id: ID!) { member(id: $id) { id } }`, { id: ada!._id });
      expect(one.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
      // Nor can anything be hung on them: a member placed in a team the import is creating, a token, targets.
      const placed = await gw.request('POST', '/teams/members', {
        body: {
          firstname: 'Late',
          lastname: 'Comer',
          email: 'late@example.com',
          role: 'member',
          memberOf: { team_id: 't-east' },
        },
      });
      expect(placed.status).toBe(404);
      const attach = await gw.request('POST', '/teams/members/linus-0000', {
        body: { team_id: 't-west' },
      });
      expect(attach.status).toBe(404);
      expect(
        (await gw.request('POST', '/auth/tokens', { body: { member_id: ada!._id } })).status,
      ).toBe(404);

      held.release();
      await held.running;
    } finally {
      await held.finish();
    }
    expect(await visibleTeamIds()).toEqual(['existing-team', ...IMPORTED_TEAMS].sort());
    expect(await visibleEmails()).toEqual(['linus@example.com', ...IMPORTED_EMAILS].sort());
    expect(await expectMembersWithTeamsAnswer()).toEqual(
      ['linus@example.com', ...IMPORTED_EMAILS].sort(),
    );
  });

  it('leaves no dangling reference when it fails after an admin placed a member in a team it was creating', async () => {
    const held = holdImport();
    try {
      await held.entered;
      // The team the import is creating is not there to place a member in.
      await gw.request('POST', '/teams/members', {
        body: {
          firstname: 'Late',
          lastname: 'Comer',
          email: 'late@example.com',
          role: 'member',
          memberOf: { team_id: 't-east' },
        },
      });
      held.fail();
      await expect(held.running).rejects.toThrow('disk full (forced)');
    } finally {
      await held.finish();
    }
    await expectMembersWithTeamsAnswer();
    expect(await visibleTeamIds()).toEqual(['existing-team']);
  });

  it('leaves no dangling reference when start-up clears it after a crash', async () => {
    const held = holdImport();
    try {
      await held.entered;
      await gw.request('POST', '/teams/members', {
        body: {
          firstname: 'Late',
          lastname: 'Comer',
          email: 'late@example.com',
          role: 'member',
          memberOf: { team_id: 't-west' },
        },
      });
      // What the next start-up does with an import that never committed.
      expect(await discardPendingImports()).toBe(1);
      await expectMembersWithTeamsAnswer();
      expect(await visibleTeamIds()).toEqual(['existing-team']);
      held.fail();
      await expect(held.running).rejects.toThrow('disk full (forced)');
    } finally {
      await held.finish();
    }
    await expectMembersWithTeamsAnswer();
  });
});

/** Runs `before` when `method` of `model` is first called, then lets the call through. */
function beforeFirstCall(model: object, method: string, before: () => Promise<unknown>) {
  const target = model as Record<string, (...args: unknown[]) => unknown>;
  const original = target[method].bind(model);
  return jest.spyOn(target, method).mockImplementationOnce((async (...args: unknown[]) => {
    await before();
    return original(...args);
  }) as never);
}

/** Every matching document, pending ones included. */
const hidden = {
  members: (filter: Record<string, unknown>) =>
    MemberModel.find(filter).setOptions(INCLUDE_PENDING_IMPORTS).lean(),
  teams: (filter: Record<string, unknown>) =>
    TeamModel.find(filter).setOptions(INCLUDE_PENDING_IMPORTS).lean(),
};

describe('what an import creates, against what admins create meanwhile', () => {
  it('answers 409 for a team id or an e-mail held by an import that has not committed, saying so', async () => {
    const held = holdImport();
    try {
      await held.entered;
      const team = await gw.request('POST', '/teams', {
        body: { team_id: 't-east', name: 'Mine' },
      });
      expect(team.status).toBe(409);
      expect(team.body.message).toBe(
        'Team t-east is being created by a CRM import that has not committed yet; try again once it has',
      );
      const member = await gw.request('POST', '/teams/members', {
        body: {
          firstname: 'Ada',
          lastname: 'Again',
          email: 'ADA@example.com',
          role: 'member',
          memberOf: { team_id: 'existing-team' },
        },
      });
      expect(member.status).toBe(409);
      expect(member.body.message).toBe(
        'A member with e-mail ADA@example.com is being created by a CRM import that has not committed yet; try again once it has',
      );
      held.release();
      await held.running;
    } finally {
      await held.finish();
    }
    expect(
      (await gw.request('POST', '/teams', { body: { team_id: 't-east', name: 'Mine' } })).body
        .message,
    ).toBe('Team t-east already exists');
  });

  it('uses a team and a member an admin created after the import looked for them', async () => {
    const spies = [
      beforeFirstCall(TeamModel, 'insertMany', () =>
        gw.request('POST', '/teams', { body: { team_id: 't-west', name: 'West (admin)' } }),
      ),
      beforeFirstCall(MemberModel, 'insertMany', () =>
        gw.request('POST', '/teams/members', {
          body: {
            firstname: 'Alan',
            lastname: 'Admin-made',
            email: 'alan@example.com',
            role: 'member',
            memberOf: { team_id: 't-west' },
          },
        }),
      ),
    ];
    let result: CrmImportResult;
    try {
      result = await importCrmData({ principal: ADMIN }, messyImport());
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(result.counts).toMatchObject({ owners: 4, teams: 3, membersCreated: 2 });
    expect(await TeamModel.findById('t-west').lean()).toMatchObject({ name: 'West (admin)' });
    const alan = await MemberModel.findOne({ emailLower: 'alan@example.com' }).lean();
    expect(alan).toMatchObject({ lastname: 'Admin-made', teamId: 't-west' });
    // Owner 103 (Alan) is the admin's Alan, in the links and in the snapshot.
    expect(await CrmOwnerLinkModel.findById('103').lean()).toMatchObject({ memberId: alan!._id });
    const alansDeals = (await opportunitiesOf(result.snapshotId)).filter(
      (o) => o.memberId === alan!._id,
    );
    expect(alansDeals.length).toBeGreaterThan(0);
    expect(alansDeals.every((o) => o.teamId === 't-west')).toBe(true);
    expect(await hidden.members({ pendingImportId: trusted({ $ne: null }) })).toEqual([]);
    expect(await expectMembersWithTeamsAnswer()).toEqual(
      ['linus@example.com', ...IMPORTED_EMAILS].sort(),
    );
  });

  it('removes exactly what it created when it fails, not what an admin created under the same ids', async () => {
    const spies = [
      beforeFirstCall(TeamModel, 'insertMany', () =>
        gw.request('POST', '/teams', { body: { team_id: 't-west', name: 'West (admin)' } }),
      ),
      beforeFirstCall(MemberModel, 'insertMany', () =>
        gw.request('POST', '/teams/members', {
          body: {
            firstname: 'Alan',
            lastname: 'Admin-made',
            email: 'alan@example.com',
            role: 'member',
            memberOf: { team_id: 't-west' },
          },
        }),
      ),
    ];
    const held = holdImport();
    try {
      await held.entered;
      held.fail();
      await expect(held.running).rejects.toThrow('disk full (forced)');
    } finally {
      await held.finish();
      for (const spy of spies) spy.mockRestore();
    }
    expect((await hidden.teams({})).map((t) => t._id).sort()).toEqual(['existing-team', 't-west']);
    expect((await hidden.members({})).map((m) => m.email).sort()).toEqual([
      'alan@example.com',
      'linus@example.com',
    ]);
    expect(await expectMembersWithTeamsAnswer()).toEqual(['alan@example.com', 'linus@example.com']);
  });

  it('finishes publishing at start-up when it stopped between committing and publishing', async () => {
    const spy = jest
      .spyOn(TeamModel, 'updateMany')
      .mockRejectedValueOnce(new Error('connection lost (forced)'));
    try {
      await expect(importCrmData({ principal: ADMIN }, messyImport())).rejects.toThrow(
        'connection lost (forced)',
      );
    } finally {
      spy.mockRestore();
    }
    // Committed, so not undone; still hidden, so nobody sees a member whose team they cannot see.
    expect(await visibleTeamIds()).toEqual(['existing-team']);
    expect(await expectMembersWithTeamsAnswer()).toEqual(['linus@example.com']);
    expect(await discardPendingImports()).toBe(0);
    expect(await visibleTeamIds()).toEqual(['existing-team', ...IMPORTED_TEAMS].sort());
    expect(await expectMembersWithTeamsAnswer()).toEqual(
      ['linus@example.com', ...IMPORTED_EMAILS].sort(),
    );
  });

  it('publishes rather than deletes what something else came to point at, when it fails', async () => {
    const held = holdImport();
    try {
      await held.entered;
      // Written past the services (which cannot see pending documents): what a clean-up must survive.
      await MemberModel.create({
        _id: 'stray',
        firstname: 'S',
        lastname: 'Tray',
        email: 'stray@example.com',
        emailLower: 'stray@example.com',
        role: Role.MEMBER,
        teamId: 't-east',
      });
      const ada = await hidden.members({ emailLower: 'ada@example.com' });
      await TargetModel.create({
        memberId: ada[0]._id,
        year: 2026,
        period: 'quarterly',
        currency: 'EUR',
        amounts: [1, 2, 3, 4],
      });
      held.fail();
      await expect(held.running).rejects.toThrow('disk full (forced)');
    } finally {
      await held.finish();
    }
    expect(await visibleTeamIds()).toEqual(['existing-team', 't-east']);
    // Ada (kept for her targets) is in t-east too; Grace and Alan, whom nothing points at, are gone.
    expect(await expectMembersWithTeamsAnswer()).toEqual([
      'ada@example.com',
      'linus@example.com',
      'stray@example.com',
    ]);
    expect(await hidden.teams({ _id: trusted({ $in: ['t-west', 'unassigned'] }) })).toEqual([]);
  });
});
