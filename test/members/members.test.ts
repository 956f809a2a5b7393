import { CrmOwnerLinkModel } from '../../src/models/crm-owner-link.model';
import { TargetModel } from '../../src/models/target.model';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { seedMember, seedSettings, seedTeam, type RestMember } from './support/seed';

let gw: TestGateway;
let redManager: RestMember;
let redManagerToken: string;
let redMemberToken: string;

beforeAll(async () => {
  gw = await startGateway({ env: { LOG_LEVEL: process.env.H4_LOG ?? 'silent' } });
  await seedTeam(gw, 'red');
  await seedTeam(gw, 'blue');
  redManager = await seedMember(gw, 'red', 'manager');
  redManagerToken = await gw.tokenFor(redManager.member_id);
  redMemberToken = await gw.tokenFor((await seedMember(gw, 'red', 'member')).member_id);
});

afterAll(async () => {
  await gw?.stop();
});

const fields = (body: { errors?: Array<{ field: string }> }) =>
  (body.errors ?? []).map((e) => e.field);

function newMemberBody(overrides: Record<string, unknown> = {}) {
  return {
    lastname: 'Hopper',
    firstname: 'Grace',
    email: `grace.${Math.random().toString(36).slice(2)}@Example.com`,
    role: 'member',
    memberOf: { team_id: 'red' },
    ...overrides,
  };
}

/** Every member id, read back through the API (all pages). */
async function allMemberIds(): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const res: { body: { members: RestMember[]; next_cursor: string | null } } = await gw.request(
      'GET',
      '/teams/members',
      {
        query: { limit: 100, ...(cursor ? { cursor } : {}) },
      },
    );
    ids.push(...res.body.members.map((m) => m.member_id));
    cursor = res.body.next_cursor;
  } while (cursor);
  return ids;
}

async function emailsInUse(): Promise<string[]> {
  const res = await gw.request('GET', '/teams/members', { query: { limit: 100 } });
  return res.body.members.map((m: RestMember) => m.email.toLowerCase());
}

describe('POST /teams/members', () => {
  it('creates a member and answers exactly the documented shape', async () => {
    const body = newMemberBody({ role: 'manager', memberOf: { team_id: 'blue' } });
    const res = await gw.request('POST', '/teams/members', { body });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'Member created',
      success: true,
      statusCode: 200,
      member: {
        member_id: expect.stringMatching(
          /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
        ),
        lastname: 'Hopper',
        firstname: 'Grace',
        email: body.email,
        role: 'manager',
        memberOf: { team_id: 'blue' },
      },
    });
    const read = await gw.request('GET', `/teams/members/${res.body.member.member_id}`);
    expect(read.body).toEqual({
      message: 'Member found',
      success: true,
      statusCode: 200,
      member: res.body.member,
    });
  });

  it('answers 400 naming each missing or invalid field, and creates nothing', async () => {
    const before = await allMemberIds();
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ lastname: undefined }, ['lastname']],
      [{ firstname: undefined }, ['firstname']],
      [{ email: undefined }, ['email']],
      [{ role: undefined }, ['role']],
      [{ memberOf: undefined }, ['memberOf']],
      [{ memberOf: {} }, ['memberOf.team_id']],
      [{ email: 'not-an-email' }, ['email']],
      // Valid for the input rule, but not for the GraphQL EmailAddress scalar it must be read back as.
      [{ email: 'ü@example.de' }, ['email']],
      [{ role: 'owner' }, ['role']],
      [{ lastname: 42 }, ['lastname']],
      [{ nickname: 'Amazing Grace' }, ['nickname']],
    ];
    for (const [overrides, expected] of cases) {
      const body = JSON.parse(JSON.stringify(newMemberBody(overrides)));
      const res = await gw.request('POST', '/teams/members', { body });
      expect({ overrides, status: res.status }).toEqual({ overrides, status: 400 });
      expect(res.body).toMatchObject({ success: false, statusCode: 400 });
      expect(fields(res.body)).toEqual(expected);
    }
    expect(await allMemberIds()).toEqual(before);
  });

  it('answers 404 for an unknown team and creates nothing', async () => {
    const body = newMemberBody({ memberOf: { team_id: 'nowhere' } });
    const res = await gw.request('POST', '/teams/members', { body });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      success: false,
      statusCode: 404,
      message: 'Team nowhere not found',
    });
    expect(await emailsInUse()).not.toContain(body.email.toLowerCase());
  });

  it('answers 409 for an e-mail taken in another case, keeping the first member', async () => {
    const first = await seedMember(gw, 'red', 'member', {
      email: 'Dup.Licate@example.com',
      firstname: 'First',
    });
    const res = await gw.request('POST', '/teams/members', {
      body: newMemberBody({ email: 'dup.licate@EXAMPLE.com', firstname: 'Second' }),
    });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ success: false, statusCode: 409 });
    expect(res.body.message).toContain('dup.licate@EXAMPLE.com');
    const same = (await emailsInUse()).filter((e) => e === 'dup.licate@example.com');
    expect(same).toHaveLength(1);
    expect(
      (await gw.request('GET', `/teams/members/${first.member_id}`)).body.member.firstname,
    ).toBe('First');
  });

  describe('roles', () => {
    it('lets a manager create members and managers of their own team', async () => {
      for (const role of ['member', 'manager']) {
        const res = await gw.request('POST', '/teams/members', {
          token: redManagerToken,
          body: newMemberBody({ role }),
        });
        expect(res.status).toBe(200);
        expect(res.body.member).toMatchObject({ role, memberOf: { team_id: 'red' } });
      }
    });

    it('forbids a manager to create an admin, or a member of another team, and a member to create anyone', async () => {
      const before = await allMemberIds();
      const attempts: Array<[string, Record<string, unknown>, RegExp]> = [
        [redManagerToken, { role: 'admin' }, /may not create an admin/],
        [redManagerToken, { memberOf: { team_id: 'blue' } }, /own team red, not of team blue/],
        [redMemberToken, {}, /A member may not create members/],
      ];
      for (const [token, overrides, message] of attempts) {
        const res = await gw.request('POST', '/teams/members', {
          token,
          body: newMemberBody(overrides),
        });
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ success: false, statusCode: 403 });
        expect(res.body.message).toMatch(message);
      }
      expect(await allMemberIds()).toEqual(before);
    });

    it('lets the admin create an admin in any team', async () => {
      const res = await gw.request('POST', '/teams/members', {
        body: newMemberBody({ role: 'admin', memberOf: { team_id: 'blue' } }),
      });
      expect(res.status).toBe(200);
      expect(res.body.member.role).toBe('admin');
    });
  });
});

describe('GET /teams/members/{member_id}', () => {
  it('is readable by every role; 404 for an unknown id', async () => {
    for (const token of [undefined, redManagerToken, redMemberToken]) {
      const res = await gw.request('GET', `/teams/members/${redManager.member_id}`, { token });
      expect(res.status).toBe(200);
      expect(res.body.member).toEqual(redManager);
    }
    const missing = await gw.request('GET', '/teams/members/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({
      success: false,
      statusCode: 404,
      message: 'Member 00000000-0000-4000-8000-000000000000 not found',
    });
  });
});

describe('GET /teams/members', () => {
  let listTeam: string;
  const created: RestMember[] = [];

  beforeAll(async () => {
    listTeam = await seedTeam(gw, 'listing');
    for (let i = 0; i < 7; i += 1)
      created.push(await seedMember(gw, listTeam, i % 3 === 0 ? 'manager' : 'member'));
  });

  it('filters by team_id and role, in id order', async () => {
    const team = await gw.request('GET', '/teams/members', { query: { team_id: listTeam } });
    expect(team.status).toBe(200);
    expect(team.body).toMatchObject({ success: true, statusCode: 200, next_cursor: null });
    const expected = created.map((m) => m.member_id).sort();
    expect(team.body.members.map((m: RestMember) => m.member_id)).toEqual(expected);
    expect(team.body.members).toEqual(expect.arrayContaining(created));

    const managers = await gw.request('GET', '/teams/members', {
      query: { team_id: listTeam, role: 'manager' },
    });
    expect(managers.body.members.map((m: RestMember) => m.member_id)).toEqual(
      created
        .filter((m) => m.role === 'manager')
        .map((m) => m.member_id)
        .sort(),
    );
  });

  it('pages with limit and an opaque cursor, each member once, next_cursor null at the end', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { status: number; body: { members: RestMember[]; next_cursor: string | null } } =
        await gw.request('GET', '/teams/members', {
          token: redMemberToken,
          query: { team_id: listTeam, limit: 3, ...(cursor ? { cursor } : {}) },
        });
      expect(res.status).toBe(200);
      expect(res.body.members.length).toBeLessThanOrEqual(3);
      seen.push(...res.body.members.map((m) => m.member_id));
      cursor = res.body.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(created.map((m) => m.member_id).sort());
  });

  it('defaults to 20 per page', async () => {
    const res = await gw.request('GET', '/teams/members');
    expect(res.body.members.length).toBe(Math.min(20, (await allMemberIds()).length));
  });

  it('answers 400 for a limit outside 1–100, a bad cursor, a bad role', async () => {
    for (const [query, field] of [
      [{ limit: 0 }, 'limit'],
      [{ limit: 101 }, 'limit'],
      [{ limit: 'ten' }, 'limit'],
      [{ cursor: 'bm90LWEtY3Vyc29y' }, 'cursor'],
      [{ role: 'owner' }, 'role'],
    ] as const) {
      const res = await gw.request('GET', '/teams/members', { query });
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(fields(res.body)).toEqual([field]);
    }
  });
});

describe('POST /teams/members/{member_id} (attach)', () => {
  it('moves a member to a team and answers the team id', async () => {
    const member = await seedMember(gw, 'red');
    const res = await gw.request('POST', `/teams/members/${member.member_id}`, {
      body: { team_id: 'blue' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: `Member ${member.member_id} attached to team blue`,
      success: true,
      statusCode: 200,
      team_id: 'blue',
    });
    expect(
      (await gw.request('GET', `/teams/members/${member.member_id}`)).body.member.memberOf,
    ).toEqual({ team_id: 'blue' });
  });

  it('answers 404 for an unknown member or team, 400 without team_id, changing nothing', async () => {
    const member = await seedMember(gw, 'red');
    const unknownMember = await gw.request(
      'POST',
      '/teams/members/00000000-0000-4000-8000-000000000000',
      { body: { team_id: 'blue' } },
    );
    expect(unknownMember.status).toBe(404);
    const unknownTeam = await gw.request('POST', `/teams/members/${member.member_id}`, {
      body: { team_id: 'nowhere' },
    });
    expect(unknownTeam.status).toBe(404);
    expect(unknownTeam.body.message).toBe('Team nowhere not found');
    const missing = await gw.request('POST', `/teams/members/${member.member_id}`, { body: {} });
    expect(missing.status).toBe(400);
    expect(fields(missing.body)).toEqual(['team_id']);
    expect((await gw.request('GET', `/teams/members/${member.member_id}`)).body.member).toEqual(
      member,
    );
  });

  it('lets a manager re-attach members of their own team within it, nothing else', async () => {
    const own = await seedMember(gw, 'red');
    const other = await seedMember(gw, 'blue');
    const ownAdmin = await seedMember(gw, 'red', 'admin');
    const ok = await gw.request('POST', `/teams/members/${own.member_id}`, {
      token: redManagerToken,
      body: { team_id: 'red' },
    });
    expect(ok.status).toBe(200);
    const denied: Array<[string, string, string]> = [
      [redManagerToken, own.member_id, 'blue'],
      [redManagerToken, other.member_id, 'red'],
      [redManagerToken, ownAdmin.member_id, 'red'],
      [redMemberToken, own.member_id, 'red'],
    ];
    for (const [token, memberId, teamId] of denied) {
      const res = await gw.request('POST', `/teams/members/${memberId}`, {
        token,
        body: { team_id: teamId },
      });
      expect({ memberId, teamId, status: res.status }).toEqual({ memberId, teamId, status: 403 });
    }
    for (const m of [own, other, ownAdmin]) {
      expect((await gw.request('GET', `/teams/members/${m.member_id}`)).body.member).toEqual(m);
    }
  });
});

describe('deleting members', () => {
  async function exists(memberId: string): Promise<boolean> {
    return (await gw.request('GET', `/teams/members/${memberId}`)).status === 200;
  }

  it.each([
    [
      'DELETE with member_id in the body',
      (id: string) => gw.request('DELETE', '/teams/members', { body: { member_id: id } }),
    ],
    [
      'DELETE with member_id in the query',
      (id: string) => gw.request('DELETE', '/teams/members', { query: { member_id: id } }),
    ],
    [
      'DELETE /teams/members/{member_id}',
      (id: string) => gw.request('DELETE', `/teams/members/${id}`),
    ],
    [
      'a raw DEL with member_id in the body',
      (id: string) => gw.request('DEL', '/teams/members', { body: { member_id: id } }),
    ],
    [
      'a raw DEL with member_id in the query',
      (id: string) => gw.request('DEL', '/teams/members', { query: { member_id: id } }),
    ],
  ])('deletes with %s', async (_how, send) => {
    const member = await seedMember(gw, 'red');
    const res = await send(member.member_id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: `Member ${member.member_id} deleted`,
      success: true,
      statusCode: 200,
    });
    expect(await exists(member.member_id)).toBe(false);
    const again = await send(member.member_id);
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({
      success: false,
      statusCode: 404,
      message: `Member ${member.member_id} not found`,
    });
  });

  it('deletes the member’s targets with it, and only theirs', async () => {
    await seedSettings(gw);
    const doomed = await seedMember(gw, 'red');
    const kept = await seedMember(gw, 'red');
    for (const m of [doomed, kept]) {
      for (const year of [2025, 2026]) {
        const res = await gw.request('POST', `/teams/members/${m.member_id}/targets`, {
          body: { year, targets: [1, 2, 3, 4] },
        });
        expect(res.status).toBe(200);
      }
    }
    expect(await TargetModel.find({ memberId: doomed.member_id }).lean()).toHaveLength(2);
    expect((await gw.request('DELETE', `/teams/members/${doomed.member_id}`)).status).toBe(200);
    expect(await TargetModel.find({ memberId: doomed.member_id }).lean()).toHaveLength(0);
    expect(await TargetModel.find({ memberId: kept.member_id }).lean()).toHaveLength(2);
  });

  it('drops the member’s CRM owner links with it, so a later import matches the owner afresh', async () => {
    const doomed = await seedMember(gw, 'red');
    const kept = await seedMember(gw, 'red');
    await CrmOwnerLinkModel.create([
      { _id: 'owner-doomed', memberId: doomed.member_id },
      { _id: 'owner-kept', memberId: kept.member_id },
    ]);
    expect((await gw.request('DELETE', `/teams/members/${doomed.member_id}`)).status).toBe(200);
    const left = await CrmOwnerLinkModel.find({}).lean();
    expect(left.map((l) => l._id)).toEqual(['owner-kept']);
  });

  it('answers 400 without member_id', async () => {
    const res = await gw.request('DELETE', '/teams/members');
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(['member_id']);
  });

  it('lets a manager delete non-admin members of their own team only; a member deletes nobody', async () => {
    const own = await seedMember(gw, 'red');
    const other = await seedMember(gw, 'blue');
    const ownAdmin = await seedMember(gw, 'red', 'admin');
    for (const [token, id] of [
      [redManagerToken, other.member_id],
      [redManagerToken, ownAdmin.member_id],
      [redMemberToken, own.member_id],
    ]) {
      const res = await gw.request('DELETE', `/teams/members/${id}`, { token });
      expect({ id, status: res.status }).toEqual({ id, status: 403 });
      expect(await exists(id)).toBe(true);
    }
    const ok = await gw.request('DELETE', `/teams/members/${own.member_id}`, {
      token: redManagerToken,
    });
    expect(ok.status).toBe(200);
    expect(await exists(own.member_id)).toBe(false);
  });
});
