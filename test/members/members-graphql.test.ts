import { startGateway, type TestGateway } from '../helpers/gateway';
import { seedMember, seedTeam, type RestMember } from './support/seed';

let gw: TestGateway;
let manager: RestMember;
let managerToken: string;
let member: RestMember;
let memberToken: string;

beforeAll(async () => {
  gw = await startGateway();
  await seedTeam(gw, 'red', 'Red');
  await seedTeam(gw, 'blue', 'Blue');
  manager = await seedMember(gw, 'red', 'manager', { email: 'Manager@Example.com' });
  managerToken = await gw.tokenFor(manager.member_id);
  member = await seedMember(gw, 'red', 'member');
  memberToken = await gw.tokenFor(member.member_id);
});

afterAll(async () => {
  await gw?.stop();
});

const CREATE = `mutation Create($input: CreateMemberInput!) {
  createMember(input: $input) { id firstname lastname email role team { id name } }
}`;

const input = (overrides: Record<string, unknown> = {}) => ({
  firstname: 'Katherine',
  lastname: 'Johnson',
  email: `k.${Math.random().toString(36).slice(2)}@example.com`,
  role: 'MEMBER',
  teamId: 'red',
  ...overrides,
});

const codeOf = (body: { errors?: Array<{ extensions: { code: string } }> }) =>
  body.errors?.[0]?.extensions.code;

async function memberCount(): Promise<number> {
  let count = 0;
  let after: string | null = null;
  do {
    const res: {
      body: {
        data: {
          members: {
            edges: unknown[];
            pageInfo: { hasNextPage: boolean; endCursor: string | null };
          };
        };
      };
    } = await gw.graphql(
      'query($after: String) { members(first: 100, after: $after) { edges { cursor } pageInfo { hasNextPage endCursor } } }',
      { after },
    );
    count += res.body.data.members.edges.length;
    after = res.body.data.members.pageInfo.hasNextPage
      ? res.body.data.members.pageInfo.endCursor
      : null;
  } while (after);
  return count;
}

describe('me and member', () => {
  it('answers the caller, and null for the bootstrap admin token', async () => {
    const mine = await gw.graphql(
      '{ me { id email role team { id name } } }',
      undefined,
      managerToken,
    );
    expect(mine.body).toEqual({
      data: {
        me: {
          id: manager.member_id,
          email: 'Manager@Example.com',
          role: 'MANAGER',
          team: { id: 'red', name: 'Red' },
        },
      },
    });
    const admin = await gw.graphql('{ me { id } }');
    expect(admin.body).toEqual({ data: { me: null } });
  });

  it('reads one member, NOT_FOUND when unknown', async () => {
    const res = await gw.graphql(
      `{ member(id: "${member.member_id}") { id firstname lastname role } }`,
      undefined,
      memberToken,
    );
    expect(res.body.data.member).toEqual({
      id: member.member_id,
      firstname: member.firstname,
      lastname: member.lastname,
      role: 'MEMBER',
    });
    expect(codeOf((await gw.graphql('{ member(id: "nobody") { id } }')).body)).toBe('NOT_FOUND');
  });
});

describe('createMember', () => {
  it('creates a member with its team', async () => {
    const fresh = input({ teamId: 'blue', role: 'MANAGER' });
    const res = await gw.graphql(CREATE, { input: fresh });
    expect(res.body).toEqual({
      data: {
        createMember: {
          id: expect.any(String),
          firstname: 'Katherine',
          lastname: 'Johnson',
          email: fresh.email,
          role: 'MANAGER',
          team: { id: 'blue', name: 'Blue' },
        },
      },
    });
  });

  it('answers BAD_USER_INPUT naming the field, NOT_FOUND, CONFLICT and FORBIDDEN like REST, creating nothing', async () => {
    const before = await memberCount();
    const badEmail = await gw.graphql(CREATE, { input: input({ email: 'nope' }) });
    expect(codeOf(badEmail.body)).toBe('BAD_USER_INPUT');
    expect(badEmail.body.errors[0].message).toMatch(/^Invalid arguments: email: /);
    expect(codeOf((await gw.graphql(CREATE, { input: input({ teamId: 'nowhere' }) })).body)).toBe(
      'NOT_FOUND',
    );
    expect(
      codeOf((await gw.graphql(CREATE, { input: input({ email: 'MANAGER@example.COM' }) })).body),
    ).toBe('CONFLICT');
    expect(
      codeOf((await gw.graphql(CREATE, { input: input({ role: 'ADMIN' }) }, managerToken)).body),
    ).toBe('FORBIDDEN');
    expect(
      codeOf((await gw.graphql(CREATE, { input: input({ teamId: 'blue' }) }, managerToken)).body),
    ).toBe('FORBIDDEN');
    expect(codeOf((await gw.graphql(CREATE, { input: input() }, memberToken)).body)).toBe(
      'FORBIDDEN',
    );
    expect(await memberCount()).toBe(before);
  });

  it('lets a manager create a member of their own team', async () => {
    const res = await gw.graphql(CREATE, { input: input() }, managerToken);
    expect(res.body.data.createMember.team).toEqual({ id: 'red', name: 'Red' });
  });
});

describe('attachMember and deleteMember', () => {
  it('moves a member and deletes it', async () => {
    const target = await seedMember(gw, 'red');
    const moved = await gw.graphql(
      `mutation { attachMember(memberId: "${target.member_id}", teamId: "blue") { id team { id } } }`,
    );
    expect(moved.body).toEqual({
      data: { attachMember: { id: target.member_id, team: { id: 'blue' } } },
    });
    const deleted = await gw.graphql(`mutation { deleteMember(id: "${target.member_id}") }`);
    expect(deleted.body).toEqual({ data: { deleteMember: target.member_id } });
    expect(codeOf((await gw.graphql(`{ member(id: "${target.member_id}") { id } }`)).body)).toBe(
      'NOT_FOUND',
    );
    expect(
      codeOf((await gw.graphql(`mutation { deleteMember(id: "${target.member_id}") }`)).body),
    ).toBe('NOT_FOUND');
  });

  it('refuses what the role table refuses, changing nothing', async () => {
    const other = await seedMember(gw, 'blue');
    expect(
      codeOf(
        (
          await gw.graphql(
            `mutation { attachMember(memberId: "${other.member_id}", teamId: "red") { id } }`,
            undefined,
            managerToken,
          )
        ).body,
      ),
    ).toBe('FORBIDDEN');
    expect(
      codeOf(
        (
          await gw.graphql(
            `mutation { deleteMember(id: "${other.member_id}") }`,
            undefined,
            managerToken,
          )
        ).body,
      ),
    ).toBe('FORBIDDEN');
    expect(
      codeOf(
        (
          await gw.graphql(
            `mutation { deleteMember(id: "${manager.member_id}") }`,
            undefined,
            memberToken,
          )
        ).body,
      ),
    ).toBe('FORBIDDEN');
    expect(
      codeOf(
        (
          await gw.graphql(
            `mutation { attachMember(memberId: "${other.member_id}", teamId: "nowhere") { id } }`,
          )
        ).body,
      ),
    ).toBe('NOT_FOUND');
    const read = await gw.request('GET', `/teams/members/${other.member_id}`);
    expect(read.body.member).toEqual(other);
    expect((await gw.request('GET', `/teams/members/${manager.member_id}`)).status).toBe(200);
  });
});

describe('members connection', () => {
  let ids: string[];

  beforeAll(async () => {
    await seedTeam(gw, 'paged');
    const created = [];
    for (let i = 0; i < 5; i += 1)
      created.push(await seedMember(gw, 'paged', i === 2 ? 'manager' : 'member'));
    ids = created.map((m) => m.member_id).sort();
  });

  it('pages in id order with edges, cursors and pageInfo', async () => {
    const Q =
      'query($after: String) { members(teamId: "paged", first: 2, after: $after) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }';
    const seen: string[] = [];
    let after: string | null = null;
    const hasNext: boolean[] = [];
    do {
      const res: {
        body: {
          data: {
            members: {
              edges: Array<{ cursor: string; node: { id: string } }>;
              pageInfo: { hasNextPage: boolean; endCursor: string };
            };
          };
        };
      } = await gw.graphql(Q, { after }, memberToken);
      const { edges, pageInfo } = res.body.data.members;
      expect(pageInfo.endCursor).toBe(edges[edges.length - 1].cursor);
      seen.push(...edges.map((e) => e.node.id));
      hasNext.push(pageInfo.hasNextPage);
      after = pageInfo.hasNextPage ? pageInfo.endCursor : null;
    } while (after);
    expect(seen).toEqual(ids);
    expect(hasNext).toEqual([true, true, false]);
  });

  it('filters by role, and Team.members pages the same way', async () => {
    const res = await gw.graphql(`{
      members(teamId: "paged", role: MANAGER) { edges { node { id role } } }
      team(id: "paged") { all: members(first: 100) { edges { node { id } } } page: members(first: 3) { edges { node { id } } pageInfo { hasNextPage } } }
    }`);
    expect(res.body.data.members.edges).toHaveLength(1);
    expect(res.body.data.members.edges[0].node.role).toBe('MANAGER');
    expect(res.body.data.team.all.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual(
      ids,
    );
    expect(res.body.data.team.page.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual(
      ids.slice(0, 3),
    );
    expect(res.body.data.team.page.pageInfo.hasNextPage).toBe(true);
  });

  it('rejects first outside 1–100 and a forged cursor with BAD_USER_INPUT', async () => {
    for (const query of [
      '{ members(first: 0) { edges { cursor } } }',
      '{ members(first: 101) { edges { cursor } } }',
      '{ members(after: "forged!") { edges { cursor } } }',
    ]) {
      const res = await gw.graphql(query);
      expect({ query, code: codeOf(res.body) }).toEqual({ query, code: 'BAD_USER_INPUT' });
    }
  });
});
