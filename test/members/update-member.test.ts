import { startGateway, type TestGateway } from '../helpers/gateway';
import { seedMember, seedTeam, type RestMember } from './support/seed';

const UPDATE = `mutation($id: ID!, $input: UpdateMemberInput!) {
  updateMember(id: $id, input: $input) { id firstname lastname email role team { id } }
}`;

let gw: TestGateway;
let redManager: RestMember;
let redManagerToken: string;

beforeAll(async () => {
  gw = await startGateway({ env: { RATE_LIMIT: '0' } });
  await seedTeam(gw, 'red');
  await seedTeam(gw, 'blue');
  redManager = await seedMember(gw, 'red', 'manager');
  redManagerToken = await gw.tokenFor(redManager.member_id);
});

afterAll(async () => {
  await gw?.stop();
});

function patch(memberId: string, body: unknown, token?: string) {
  return gw.request('PATCH', `/teams/members/${memberId}`, { body, token });
}

const fields = (body: { errors?: Array<{ field: string }> }) =>
  (body.errors ?? []).map((e) => e.field);

describe('PATCH /teams/members/{member_id}', () => {
  it("changes an admin's choice of names, e-mail and role, answering the member", async () => {
    const member = await seedMember(gw, 'red');
    const email = `Grace.${Date.now()}@Example.com`;
    const res = await patch(member.member_id, {
      firstname: 'Grace',
      lastname: 'Hopper',
      email,
      role: 'manager',
    });
    expect(res.status).toBe(200);
    const expected = {
      member_id: member.member_id,
      firstname: 'Grace',
      lastname: 'Hopper',
      email,
      role: 'manager',
      memberOf: { team_id: 'red' },
    };
    expect(res.body).toEqual({
      message: `Member ${member.member_id} updated`,
      success: true,
      statusCode: 200,
      member: expected,
    });
    expect((await gw.request('GET', `/teams/members/${member.member_id}`)).body.member).toEqual(
      expected,
    );
    // One field alone leaves the others as they are.
    const one = await patch(member.member_id, { lastname: 'Murray Hopper' });
    expect(one.body.member).toEqual({ ...expected, lastname: 'Murray Hopper' });
  });

  it('changes a member through the GraphQL mutation, with the same rules', async () => {
    const member = await seedMember(gw, 'red');
    const res = await gw.graphql(UPDATE, {
      id: member.member_id,
      input: { firstname: 'Barbara', role: 'MANAGER' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.updateMember).toEqual({
      id: member.member_id,
      firstname: 'Barbara',
      lastname: member.lastname,
      email: member.email,
      role: 'MANAGER',
      team: { id: 'red' },
    });
    const empty = await gw.graphql(UPDATE, { id: member.member_id, input: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const nulled = await gw.graphql(UPDATE, { id: member.member_id, input: { lastname: null } });
    expect(nulled.status).toBe(400);
    const unknown = await gw.graphql(UPDATE, { id: 'nobody', input: { firstname: 'X' } });
    expect(unknown.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const forbidden = await gw.graphql(
      UPDATE,
      { id: member.member_id, input: { role: 'ADMIN' } },
      redManagerToken,
    );
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('refuses an e-mail another member holds, compared case-insensitively (409); a member may keep theirs in another case', async () => {
    const holder = await seedMember(gw, 'red');
    const member = await seedMember(gw, 'red');
    const taken = await patch(member.member_id, { email: holder.email.toUpperCase() });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toBe(
      `A member with e-mail ${holder.email.toUpperCase()} already exists (e-mails are compared case-insensitively)`,
    );
    expect((await gw.request('GET', `/teams/members/${member.member_id}`)).body.member.email).toBe(
      member.email,
    );
    const ownInCaps = await patch(member.member_id, { email: member.email.toUpperCase() });
    expect(ownInCaps.status).toBe(200);
    expect(ownInCaps.body.member.email).toBe(member.email.toUpperCase());
  });

  it('answers 404 for an unknown member and 400 for an empty body, an unknown field, a null or a bad value', async () => {
    const member = await seedMember(gw, 'red');
    const unknown = await patch('nobody', { firstname: 'X' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      message: 'Member nobody not found',
      success: false,
      statusCode: 404,
    });
    const empty = await patch(member.member_id, {});
    expect(empty.status).toBe(400);
    expect(empty.body.message).toBe(
      'Invalid input: nothing to change: send at least one of role, firstname, lastname, email',
    );
    const none = await gw.request('PATCH', `/teams/members/${member.member_id}`);
    expect(none.status).toBe(400);
    const cases: Array<[unknown, string]> = [
      [{ firstname: 'X', team_id: 'blue' }, 'team_id'],
      [{ memberOf: { team_id: 'blue' } }, 'memberOf'],
      [{ lastname: null }, 'lastname'],
      [{ firstname: '' }, 'firstname'],
      [{ role: 'owner' }, 'role'],
      [{ role: null }, 'role'],
      [{ email: 'not-an-address' }, 'email'],
      [{ email: 'x'.repeat(250) + '@example.com' }, 'email'],
    ];
    for (const [body, field] of cases) {
      const res = await patch(member.member_id, body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(fields(res.body)).toContain(field);
    }
    expect(await gw.request('GET', `/teams/members/${member.member_id}`)).toMatchObject({
      body: { member },
    });
  });

  it('lets a manager change members of their own team and themselves, never to or from admin, never another team', async () => {
    const red = await seedMember(gw, 'red');
    const redAdmin = await seedMember(gw, 'red', 'admin');
    const blue = await seedMember(gw, 'blue');
    const promoted = await patch(red.member_id, { role: 'manager' }, redManagerToken);
    expect(promoted.status).toBe(200);
    expect(promoted.body.member.role).toBe('manager');
    expect((await patch(red.member_id, { role: 'member' }, redManagerToken)).status).toBe(200);
    expect(
      (await patch(redManager.member_id, { firstname: 'Renamed' }, redManagerToken)).status,
    ).toBe(200);

    const refusals: Array<[string, unknown, string]> = [
      [
        red.member_id,
        { role: 'admin' },
        'A manager may not make a member an admin; only an admin may',
      ],
      [
        redAdmin.member_id,
        { firstname: 'X' },
        "A manager may not change an admin's record; only an admin may",
      ],
      [
        redAdmin.member_id,
        { role: 'member' },
        "A manager may not change an admin's record; only an admin may",
      ],
      [
        blue.member_id,
        { firstname: 'X' },
        `A manager may only change members of their own team red; member ${blue.member_id} is in team blue`,
      ],
    ];
    for (const [id, body, message] of refusals) {
      const res = await patch(id, body, redManagerToken);
      expect({ id, status: res.status, message: res.body.message }).toEqual({
        id,
        status: 403,
        message,
      });
    }
    expect((await gw.request('GET', `/teams/members/${redAdmin.member_id}`)).body.member.role).toBe(
      'admin',
    );
  });

  it('refuses members (403)', async () => {
    const member = await seedMember(gw, 'red');
    const token = await gw.tokenFor(member.member_id);
    const res = await patch(member.member_id, { firstname: 'Me' }, token);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('A member may not change members; an admin or a manager may');
  });

  it('changes what a token issued before may do from the very next request', async () => {
    const member = await seedMember(gw, 'red');
    const token = await gw.tokenFor(member.member_id);
    const newMember = (email: string) => ({
      firstname: 'New',
      lastname: 'Member',
      email,
      role: 'member',
      memberOf: { team_id: 'red' },
    });
    const before = await gw.request('POST', '/teams/members', {
      token,
      body: newMember(`before-${Date.now()}@example.com`),
    });
    expect(before.status).toBe(403);
    expect((await patch(member.member_id, { role: 'manager' })).status).toBe(200);
    const after = await gw.request('POST', '/teams/members', {
      token,
      body: newMember(`after-${Date.now()}@example.com`),
    });
    expect(after.status).toBe(200);
    expect((await gw.graphql('{ viewer { role } }', undefined, token)).body.data.viewer.role).toBe(
      'MANAGER',
    );

    // An admin demoted loses what only admins may do, with the same token.
    const admin = await seedMember(gw, 'red', 'admin');
    const adminToken = await gw.tokenFor(admin.member_id);
    const issue = () =>
      gw.request('POST', '/auth/tokens', {
        token: adminToken,
        body: { member_id: member.member_id },
      });
    expect((await issue()).status).toBe(200);
    expect((await patch(admin.member_id, { role: 'member' })).status).toBe(200);
    expect((await issue()).status).toBe(403);
  });

  it('is PATCH on the member path only: other methods there and PATCH on the list answer 405', async () => {
    const member = await seedMember(gw, 'red');
    const put = await gw.request('PUT', `/teams/members/${member.member_id}`, {
      body: { firstname: 'X' },
    });
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('DELETE, GET, HEAD, PATCH, POST');
    const list = await gw.request('PATCH', '/teams/members', { body: { firstname: 'X' } });
    expect(list.status).toBe(405);
    expect(list.headers.allow).not.toContain('PATCH');
  });
});
