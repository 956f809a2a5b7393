import { randomUUID } from 'node:crypto';
import { DataAccess } from '../../src/data/data-access';
import { SCOPES } from '../../src/data/scopes';
import { bumpVersions } from '../../src/data/versions-document';
import { MemberBatches } from '../../src/loaders/member.loaders';
import { MemberModel } from '../../src/models/member.model';
import { TargetModel } from '../../src/models/target.model';
import { TeamModel } from '../../src/models/team.model';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { TEST_CACHE_MAX_AGE_MS } from '../helpers/cache-window';

let gw: TestGateway;
const TEAMS = 20;
const PER_TEAM = 3;
const teamIds = Array.from({ length: TEAMS }, (_, i) => `t${String(i).padStart(2, '0')}`);
const memberIdsByTeam = new Map<string, string[]>();
/** A member with 2026 targets, and one with only 2025 targets. */
let withTargetsId: string;
let only2025Id: string;

/** Command names the embedded server received while `run` ran (driver housekeeping left out). */
async function commandsDuring(run: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  await bumpVersions(gw.connection, SCOPES); // count batching on cold caches, as a first request would
  const listener = (name: string) => {
    if (!['hello', 'ismaster', 'isMaster', 'ping', 'endSessions'].includes(name)) seen.push(name);
  };
  const stop = gw.onCommand(listener);
  try {
    await run();
  } finally {
    stop();
  }
  return seen;
}

beforeAll(async () => {
  gw = await startGateway();
  await TeamModel.insertMany(teamIds.map((id) => ({ _id: id, name: `Team ${id}` })));
  const members = teamIds.flatMap((teamId) =>
    Array.from({ length: PER_TEAM }, (_, i) => ({
      _id: randomUUID(),
      firstname: 'F',
      lastname: `L${i}`,
      email: `${teamId}.${i}@example.com`,
      emailLower: `${teamId}.${i}@example.com`,
      role: i === 0 ? 'manager' : 'member',
      teamId,
    })),
  );
  await MemberModel.insertMany(members);
  for (const teamId of teamIds) {
    memberIdsByTeam.set(
      teamId,
      members
        .filter((m) => m.teamId === teamId)
        .map((m) => m._id)
        .sort(),
    );
  }
  // Every other member has targets for 2026; one also for 2025, which must not leak into 2026.
  const withTargets = members.filter((_, i) => i % 2 === 0);
  await TargetModel.insertMany(
    withTargets.map((m, i) => ({
      _id: randomUUID(),
      memberId: m._id,
      year: 2026,
      period: 'quarterly',
      currency: 'EUR',
      amounts: [i, i, i, i],
    })),
  );
  await TargetModel.create({
    _id: randomUUID(),
    memberId: members[1]._id,
    year: 2025,
    period: 'quarterly',
    currency: 'EUR',
    amounts: [9, 9, 9, 9],
  });
  withTargetsId = members[0]._id;
  only2025Id = members[1]._id;
});

afterAll(async () => {
  await gw?.stop();
  jest.restoreAllMocks();
});

// Depth 6, the most the gateway accepts (src/security/graphql-limits.ts).
const QUERY = `{
  teams {
    id
    members(first: 100) {
      edges { node { id targets(year: 2026) { year currency } } }
    }
  }
}`;

type Answer = {
  data: {
    teams: Array<{
      id: string;
      members: { edges: Array<{ node: { id: string; targets: { year: number } | null } }> };
    }>;
  };
};

describe('members graph batching', () => {
  it('answers 20 teams with their members and targets in 3 find commands and the version read (admin token: no authentication lookup)', async () => {
    let answer: Answer | undefined;
    const commands = await commandsDuring(async () => {
      const res = await gw.graphql<Answer>(QUERY);
      expect(res.status).toBe(200);
      answer = res.body;
    });
    // the versions, teams, membersByTeam, targetsByMember
    expect(commands).toEqual(['find', 'find', 'find', 'find']);

    const teams = answer!.data.teams;
    expect(teams.map((t) => t.id)).toEqual(teamIds);
    for (const team of teams) {
      expect(team.members.edges.map((e) => e.node.id)).toEqual(memberIdsByTeam.get(team.id));
    }
    const withTargets = teams
      .flatMap((t) => t.members.edges)
      .filter((e) => e.node.targets !== null);
    expect(withTargets).toHaveLength((TEAMS * PER_TEAM) / 2);
    expect(withTargets.every((e) => e.node.targets!.year === 2026)).toBe(true);
  });

  it("adds exactly two finds for authentication with a member token: the token's record and its member", async () => {
    const token = await gw.tokenFor(memberIdsByTeam.get('t00')![0]);
    const commands = await commandsDuring(async () => {
      const res = await gw.graphql(
        '{ teams { id members { edges { node { id team { name } } } } } }',
        undefined,
        token,
      );
      expect(res.body.errors).toBeUndefined();
    });
    // the versions, authentication (the token's record, the member), teams, membersByTeam,
    // teamById (member.team)
    expect(commands).toEqual(['find', 'find', 'find', 'find', 'find', 'find']);
  });

  it('calls each batch function once, with every key of its level (recorded loadCalls)', async () => {
    const membersByTeam = jest.spyOn(MemberBatches.prototype, 'membersByTeam');
    const targetsByMember = jest.spyOn(MemberBatches.prototype, 'targetsByMember');
    const teamsById = jest.spyOn(MemberBatches.prototype, 'teamsById');
    try {
      const res = await gw.graphql(
        `{ teams { id members { edges { node { id team { id } targets(year: 2026) { year } } } } } }`,
      );
      expect(res.body.errors).toBeUndefined();
      expect(membersByTeam.mock.calls).toEqual([[teamIds]]);
      const allMembers = teamIds.flatMap((t) => memberIdsByTeam.get(t)!);
      expect(targetsByMember.mock.calls).toEqual([
        [allMembers.map((memberId) => ({ memberId, year: 2026 }))],
      ]);
      // Each team is asked for once, deduplicated by the loader's cache.
      expect(teamsById.mock.calls).toEqual([[teamIds]]);
    } finally {
      membersByTeam.mockRestore();
      targetsByMember.mockRestore();
      teamsById.mockRestore();
    }
  });

  it('answers null for misses without failing the other keys of the batch', async () => {
    const access = new DataAccess({
      connection: gw.connection,
      cacheMaxAgeMs: TEST_CACHE_MAX_AGE_MS,
    });
    await access.ready();
    const memberBatches = new MemberBatches(access, access.request());
    await expect(memberBatches.membersById(['nobody', withTargetsId])).resolves.toEqual([
      null,
      expect.objectContaining({ _id: withTargetsId }),
    ]);
    const [empty, t01] = await memberBatches.membersByTeam(['empty', 't01']);
    expect(empty).toEqual([]);
    expect(t01.map((m) => m._id)).toEqual(memberIdsByTeam.get('t01'));
    // The batch reads the cross product of ids and years; only the exact pairs come back.
    const targets = await memberBatches.targetsByMember([
      { memberId: withTargetsId, year: 2026 },
      { memberId: withTargetsId, year: 2025 },
      { memberId: only2025Id, year: 2026 },
      { memberId: only2025Id, year: 2025 },
    ]);
    expect(
      targets.map((t) =>
        t && !(t instanceof Error) ? `${t.memberId === withTargetsId ? 'a' : 'b'}${t.year}` : null,
      ),
    ).toEqual(['a2026', null, null, 'b2025']);
  });
});
