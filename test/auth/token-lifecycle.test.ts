import { SignJWT } from 'jose';
import { Role } from '../../src/auth/role';
import { DataAccess } from '../../src/data/data-access';
import { UnauthenticatedError } from '../../src/errors';
import { TokenModel, newTokenId } from '../../src/models/token.model';
import { issueToken } from '../../src/services/token.service';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { seedMember, seedTeam, type RestMember } from '../members/support/seed';
import { requestContext } from '../pipelines/support/context';

const VIEWER = '{ viewer { subject role } }';
const TOKENS = `query($memberId: ID!, $first: Int!, $after: String) {
  tokens(memberId: $memberId, first: $first, after: $after) {
    edges { cursor node { id memberId issuedBy issuedAt expiresAt revokedAt } }
    pageInfo { hasNextPage endCursor }
  }
}`;
const REVOKE = 'mutation($id: ID!) { revokeToken(id: $id) { id memberId revokedAt } }';

let gw: TestGateway;
let manager: RestMember;
let managerToken: string;

beforeAll(async () => {
  gw = await startGateway({ env: { RATE_LIMIT: '0' } });
  await seedTeam(gw, 'red');
  manager = await seedMember(gw, 'red', 'manager');
  managerToken = await gw.tokenFor(manager.member_id);
});

afterAll(async () => {
  await gw?.stop();
});

/** Issues a token as `issuer` (the admin token when omitted); answers the token and its id. */
async function issue(
  memberId: string,
  issuer?: string,
  expiresIn = 600,
): Promise<{ token: string; id: string }> {
  const res = await gw.request('POST', '/auth/tokens', {
    token: issuer,
    body: { member_id: memberId, expires_in: expiresIn },
  });
  expect(res.status).toBe(200);
  return { token: res.body.token, id: res.body.token_id };
}

/** The status a token gets on a REST read and on a GraphQL query, which must agree. */
async function statusOf(token: string): Promise<number> {
  const rest = await gw.request('GET', '/teams', { token });
  const gql = await gw.graphql(VIEWER, undefined, token);
  expect(gql.status).toBe(rest.status);
  if (rest.status === 401) {
    expect(rest.body).toEqual({
      message: 'Authentication required: send a valid token as "Authorization: Bearer <token>"',
      success: false,
      statusCode: 401,
    });
    expect(gql.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  }
  return rest.status;
}

async function listed(memberId: string): Promise<string[]> {
  const res = await gw.request('GET', '/auth/tokens', { query: { member_id: memberId } });
  expect(res.status).toBe(200);
  return res.body.tokens.map((t: { token_id: string }) => t.token_id);
}

describe('listing tokens', () => {
  it("lists a member's live tokens in issue order, in pages, never the tokens themselves", async () => {
    const member = await seedMember(gw, 'red');
    const issued = [];
    for (const seconds of [600, 700, 800])
      issued.push(await issue(member.member_id, undefined, seconds));
    const res = await gw.request('GET', '/auth/tokens', { query: { member_id: member.member_id } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      message: `3 live token(s) of member ${member.member_id}`,
      success: true,
      statusCode: 200,
      next_cursor: null,
    });
    expect(res.body.tokens.map((t: { token_id: string }) => t.token_id)).toEqual(
      issued.map((t) => t.id),
    );
    for (const [i, listedToken] of res.body.tokens.entries()) {
      expect(Object.keys(listedToken).sort()).toEqual([
        'expires_at',
        'issued_at',
        'issued_by',
        'member_id',
        'token_id',
      ]);
      expect(listedToken).toMatchObject({ member_id: member.member_id, issued_by: 'admin-token' });
      expect(Date.parse(listedToken.expires_at) - Date.parse(listedToken.issued_at)).toBe(
        [600, 700, 800][i] * 1000,
      );
    }
    const text = JSON.stringify(res.body);
    for (const { token } of issued) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(token.split('.')[2]);
    }

    const first = await gw.request('GET', '/auth/tokens', {
      query: { member_id: member.member_id, limit: 2 },
    });
    expect(first.body.tokens.map((t: { token_id: string }) => t.token_id)).toEqual(
      issued.slice(0, 2).map((t) => t.id),
    );
    expect(typeof first.body.next_cursor).toBe('string');
    const second = await gw.request('GET', '/auth/tokens', {
      query: { member_id: member.member_id, limit: 2, cursor: first.body.next_cursor },
    });
    expect(second.body.tokens.map((t: { token_id: string }) => t.token_id)).toEqual([issued[2].id]);
    expect(second.body.next_cursor).toBeNull();

    const gql = await gw.graphql(TOKENS, { memberId: member.member_id, first: 2 });
    expect(gql.status).toBe(200);
    const page = gql.body.data.tokens;
    expect(page.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual(
      issued.slice(0, 2).map((t) => t.id),
    );
    expect(page.edges[0].node).toMatchObject({
      memberId: member.member_id,
      issuedBy: 'admin-token',
      revokedAt: null,
    });
    expect(page.pageInfo.hasNextPage).toBe(true);
    const rest = await gw.graphql(TOKENS, {
      memberId: member.member_id,
      first: 2,
      after: page.pageInfo.endCursor,
    });
    expect(rest.body.data.tokens.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([
      issued[2].id,
    ]);
  });

  it('leaves out revoked and expired tokens', async () => {
    const member = await seedMember(gw, 'red');
    const live = await issue(member.member_id);
    const revoked = await issue(member.member_id);
    expect((await gw.request('DELETE', `/auth/tokens/${revoked.id}`)).status).toBe(200);
    // A token past its expiry whose record has not gone yet (records go a day later).
    await TokenModel.create({
      _id: newTokenId(),
      memberId: member.member_id,
      issuedBy: 'admin-token',
      issuedAt: new Date(Date.now() - 7200_000),
      expiresAt: new Date(Date.now() - 3600_000),
    });
    expect(await listed(member.member_id)).toEqual([live.id]);
  });

  it('refuses managers and members (403), an unknown member (404), a missing member_id or a foreign cursor (400)', async () => {
    const member = await seedMember(gw, 'red');
    const memberToken = await gw.tokenFor(member.member_id);
    for (const token of [managerToken, memberToken]) {
      const res = await gw.request('GET', '/auth/tokens', {
        token,
        query: { member_id: member.member_id },
      });
      expect(res.status).toBe(403);
      expect(res.body.message).toMatch(
        /^Only an admin may list tokens; the caller is a (manager|member)$/,
      );
      const gql = await gw.graphql(TOKENS, { memberId: member.member_id, first: 5 }, token);
      expect(gql.status).toBe(403);
      expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
    }
    const unknown = await gw.request('GET', '/auth/tokens', { query: { member_id: 'nobody' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('Member nobody not found');
    const missing = await gw.request('GET', '/auth/tokens');
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((e: { field: string }) => e.field)).toEqual(['member_id']);
    const foreign = await gw.request('GET', '/auth/tokens', {
      query: { member_id: member.member_id, cursor: Buffer.from('m:x').toString('base64url') },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors[0].field).toBe('cursor');
    const tooMany = await gw.request('GET', '/auth/tokens', {
      query: { member_id: member.member_id, limit: 101 },
    });
    expect(tooMany.status).toBe(400);
  });
});

describe('revoking a token', () => {
  it("answers 401 for it from the next request, on both transports, and leaves the member's other tokens", async () => {
    const member = await seedMember(gw, 'red');
    const first = await issue(member.member_id);
    const second = await issue(member.member_id);
    expect(await statusOf(first.token)).toBe(200);

    const res = await gw.request('DEL', `/auth/tokens/${first.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      message: `Token ${first.id} revoked`,
      success: true,
      statusCode: 200,
      token: { token_id: first.id, member_id: member.member_id, issued_by: 'admin-token' },
    });
    const revokedAt = Date.parse(res.body.token.revoked_at);
    expect(Math.abs(revokedAt - Date.now())).toBeLessThan(60_000);
    expect(await statusOf(first.token)).toBe(401);
    expect(await statusOf(second.token)).toBe(200);
    expect(await listed(member.member_id)).toEqual([second.id]);

    const again = await gw.request('DELETE', `/auth/tokens/${first.id}`);
    expect(again.status).toBe(200);
    expect(again.body.message).toBe(`Token ${first.id} was already revoked`);
    expect(again.body.token.revoked_at).toBe(res.body.token.revoked_at);

    const gql = await gw.graphql(REVOKE, { id: second.id });
    expect(gql.status).toBe(200);
    expect(gql.body.data.revokeToken).toMatchObject({ id: second.id, memberId: member.member_id });
    expect(gql.body.data.revokeToken.revokedAt).not.toBeNull();
    expect(await statusOf(second.token)).toBe(401);
  });

  it('answers 404 for an unknown token and 400 for an id that is not one', async () => {
    const unknown = await gw.request('DELETE', `/auth/tokens/${newTokenId()}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toMatch(/^Token [0-9a-f]{24} not found$/);
    const gql = await gw.graphql(REVOKE, { id: newTokenId() });
    expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const bad = await gw.request('DELETE', '/auth/tokens/not%20an%20id');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('token_id');
  });

  it('lets a member revoke their own token, with that very token, and refuses anyone else but an admin', async () => {
    const owner = await seedMember(gw, 'red');
    const other = await seedMember(gw, 'red');
    const own = await issue(owner.member_id);
    const others = await issue(other.member_id);

    for (const token of [own.token, managerToken]) {
      const refused = await gw.request('DELETE', `/auth/tokens/${others.id}`, { token });
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe(
        `Only an admin may revoke another member's token; token ${others.id} is not the caller's`,
      );
      const gql = await gw.graphql(REVOKE, { id: others.id }, token);
      expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
    }
    expect(await statusOf(others.token)).toBe(200);

    const self = await gw.request('DEL', `/auth/tokens/${own.id}`, { token: own.token });
    expect(self.status).toBe(200);
    expect(await statusOf(own.token)).toBe(401);
  });
});

describe('deleting a member', () => {
  it('revokes every token of theirs, and every token they issued while an admin; not the tokens others issued', async () => {
    const admin = await seedMember(gw, 'red', 'admin');
    const adminToken = (await issue(admin.member_id)).token;
    const target = await seedMember(gw, 'red');
    const mintedForOther = await issue(target.member_id, adminToken);
    const mintedForSelf = await issue(admin.member_id, adminToken);
    const fromBootstrap = await issue(target.member_id);
    const listedAsTarget = await gw.request('GET', '/auth/tokens', {
      query: { member_id: target.member_id },
    });
    expect(
      listedAsTarget.body.tokens.map((t: { token_id: string; issued_by: string }) => [
        t.token_id,
        t.issued_by,
      ]),
    ).toEqual([
      [mintedForOther.id, admin.member_id],
      [fromBootstrap.id, 'admin-token'],
    ]);
    for (const token of [
      adminToken,
      mintedForOther.token,
      mintedForSelf.token,
      fromBootstrap.token,
    ])
      expect(await statusOf(token)).toBe(200);

    expect((await gw.request('DELETE', `/teams/members/${admin.member_id}`)).status).toBe(200);

    expect(await statusOf(adminToken)).toBe(401);
    expect(await statusOf(mintedForSelf.token)).toBe(401);
    expect(await statusOf(mintedForOther.token)).toBe(401);
    expect(await statusOf(fromBootstrap.token)).toBe(200);
    expect(await listed(target.member_id)).toEqual([fromBootstrap.id]);
    const records = await TokenModel.find({
      $or: [{ memberId: admin.member_id }, { issuedBy: admin.member_id }],
    }).lean();
    expect(records).toHaveLength(3);
    for (const record of records) expect(record.revokedAt).toBeInstanceOf(Date);
    expect(
      (await gw.request('GET', '/auth/tokens', { query: { member_id: admin.member_id } })).status,
    ).toBe(404);
  });

  it("revokes a token that a member's manager deletes them with, through GraphQL too", async () => {
    const member = await seedMember(gw, 'red');
    const token = (await issue(member.member_id)).token;
    const res = await gw.graphql(
      'mutation($id: ID!) { deleteMember(id: $id) }',
      { id: member.member_id },
      managerToken,
    );
    expect(res.body).toEqual({ data: { deleteMember: member.member_id } });
    expect(await statusOf(token)).toBe(401);
    const record = await TokenModel.findOne({ memberId: member.member_id }).lean();
    expect(record?.revokedAt).toBeInstanceOf(Date);
  });

  it('refuses a token an admin was issuing as they were deleted, and revokes what it recorded', async () => {
    const target = await seedMember(gw, 'red');
    const gone = {
      subject: 'deleted-admin',
      role: Role.ADMIN,
      memberId: 'deleted-admin',
      teamId: 'red',
    };
    const access = new DataAccess({ connection: gw.connection, cacheMaxAgeMs: 0 });
    await expect(
      issueToken(requestContext(gone, access), { memberId: target.member_id }),
    ).rejects.toBeInstanceOf(UnauthenticatedError);
    const recorded = await TokenModel.find({ issuedBy: 'deleted-admin' }).lean();
    expect(recorded).toHaveLength(1);
    expect(recorded[0].revokedAt).toBeInstanceOf(Date);
    expect(await listed(target.member_id)).toEqual([]);
  });
});

describe('tokens that were never issued here', () => {
  async function signed(claims: Record<string, unknown>): Promise<string> {
    return new SignJWT({ role: 'member', ...claims })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer('pipeline-gateway')
      .setAudience('pipeline-gateway')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(gw.jwtSecret);
  }

  it('refuses a token without an id (signed before tokens had one), even with the gateway key', async () => {
    const member = await seedMember(gw, 'red');
    expect(await statusOf(await signed({ sub: member.member_id }))).toBe(401);
  });

  it('refuses an id without a record, and a record of another member; accepts the matching record', async () => {
    const member = await seedMember(gw, 'red');
    const other = await seedMember(gw, 'red');
    expect(await statusOf(await signed({ sub: member.member_id, jti: newTokenId() }))).toBe(401);
    const othersRecord = await issue(other.member_id);
    expect(await statusOf(await signed({ sub: member.member_id, jti: othersRecord.id }))).toBe(401);
    const own = await issue(member.member_id);
    expect(await statusOf(await signed({ sub: member.member_id, jti: own.id }))).toBe(200);
  });
});
