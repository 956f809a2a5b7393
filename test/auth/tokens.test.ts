import { Role } from '../../src/auth/role';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { insertMember } from './members.fixture';

const ISSUE =
  'mutation($memberId: ID!, $expiresIn: Int) { issueToken(memberId: $memberId, expiresIn: $expiresIn) { token id issuedAt expiresAt memberId role } }';

describe('issuing tokens', () => {
  let gw: TestGateway;
  let memberId: string;
  let managerId: string;
  beforeAll(async () => {
    gw = await startGateway();
    memberId = await insertMember(Role.MEMBER, 'team-a');
    managerId = await insertMember(Role.MANAGER, 'team-a');
  });
  afterAll(async () => {
    await gw.stop();
  });

  it('issues a token an admin can hand to a member, which then authenticates as that member', async () => {
    const before = Date.now();
    const res = await gw.request('POST', '/auth/tokens', {
      body: { member_id: memberId, expires_in: 120 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ message: 'Token issued', success: true, statusCode: 200 });
    expect(Object.keys(res.body).sort()).toEqual([
      'expires_at',
      'message',
      'statusCode',
      'success',
      'token',
      'token_id',
    ]);
    expect(res.body.token_id).toMatch(/^[0-9a-f]{24}$/);
    const claims = JSON.parse(Buffer.from(res.body.token.split('.')[1], 'base64url').toString());
    expect(claims.jti).toBe(res.body.token_id);
    const expiresAt = Date.parse(res.body.expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 120_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 120_000);
    const viewer = await gw.graphql(
      '{ viewer { subject role memberId teamId } }',
      undefined,
      res.body.token,
    );
    expect(viewer.body.data.viewer).toEqual({
      subject: memberId,
      role: 'MEMBER',
      memberId,
      teamId: 'team-a',
    });
  });

  it('defaults to one day', async () => {
    const res = await gw.request('POST', '/auth/tokens', { body: { member_id: memberId } });
    expect(Date.parse(res.body.expires_at) - Date.now()).toBeGreaterThan(24 * 3600_000 - 60_000);
  });

  it('refuses managers and members with 403', async () => {
    for (const id of [managerId, memberId]) {
      const token = await gw.tokenFor(id);
      const res = await gw.request('POST', '/auth/tokens', {
        token,
        body: { member_id: memberId },
      });
      expect(res.status).toBe(403);
      expect(res.body.success).toBe(false);
      expect(res.body.message).toMatch(/admin role/);
      const gql = await gw.graphql(ISSUE, { memberId }, token);
      expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
      expect(gql.status).toBe(403);
    }
  });

  it('answers 404 for an unknown member', async () => {
    const res = await gw.request('POST', '/auth/tokens', { body: { member_id: 'no-such-member' } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      message: 'Member no-such-member not found',
      success: false,
      statusCode: 404,
    });
  });

  it('rejects bad expires_in values with 400 naming the field', async () => {
    for (const expires_in of [0, 59, 30 * 24 * 3600 + 1, 1.5, '3600', 'soon']) {
      const res = await gw.request('POST', '/auth/tokens', {
        body: { member_id: memberId, expires_in },
      });
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain('expires_in');
    }
    const missing = await gw.request('POST', '/auth/tokens', { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].field).toBe('member_id');
  });

  it('issues through the GraphQL mutation too', async () => {
    const res = await gw.graphql(ISSUE, { memberId: managerId, expiresIn: 600 });
    expect(res.status).toBe(200);
    expect(res.body.data.issueToken).toMatchObject({ memberId: managerId, role: 'MANAGER' });
    const { id, issuedAt, expiresAt } = res.body.data.issueToken;
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(Date.parse(expiresAt) - Date.parse(issuedAt)).toBe(600_000);
    const viewer = await gw.graphql(
      '{ viewer { role } }',
      undefined,
      res.body.data.issueToken.token,
    );
    expect(viewer.body.data.viewer.role).toBe('MANAGER');
    const bad = await gw.graphql(ISSUE, { memberId: managerId, expiresIn: 10 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      errors: [{ field: 'expiresIn', message: 'must be at least 60 seconds, got number 10' }],
    });
  });
});

describe('a chosen ADMIN_TOKEN', () => {
  it('works with any visible characters', async () => {
    const adminToken = 'S3cr3t!#$%&*+/=?^_`{|}~-token';
    const gw = await startGateway({ env: { ADMIN_TOKEN: adminToken } });
    try {
      expect(gw.adminToken).toBe(adminToken);
      const res = await gw.graphql('{ viewer { subject } }', undefined, adminToken);
      expect(res.body).toEqual({ data: { viewer: { subject: 'admin-token' } } });
      expect((await gw.graphql('{ viewer { subject } }', undefined, `${adminToken}x`)).status).toBe(
        401,
      );
    } finally {
      await gw.stop();
    }
  });
});
