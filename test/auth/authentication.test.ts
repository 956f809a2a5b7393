import { SignJWT, generateKeyPair } from 'jose';
import { TokenSigner } from '../../src/auth/jwt';
import { Role } from '../../src/auth/role';
import { MemberModel } from '../../src/models/member.model';
import { TokenModel, newTokenId } from '../../src/models/token.model';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { insertMember } from './members.fixture';

const MESSAGE = 'Authentication required: send a valid token as "Authorization: Bearer <token>"';
const VIEWER = '{ viewer { subject role memberId teamId } }';

function b64(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('authentication', () => {
  let gw: TestGateway;
  let memberId: string;
  const claims = () => ({
    sub: memberId,
    role: 'admin',
    iss: 'pipeline-gateway',
    aud: 'pipeline-gateway',
    exp: Math.floor(Date.now() / 1000) + 600,
  });

  beforeAll(async () => {
    gw = await startGateway();
    memberId = await insertMember(Role.MEMBER, 'team-a');
  });
  afterAll(async () => {
    await gw.stop();
  });

  async function rejected(authorization: string | undefined): Promise<void> {
    const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
    const rest = await gw.request('POST', '/auth/tokens', {
      token: null,
      headers,
      body: { member_id: memberId },
    });
    expect(rest.status).toBe(401);
    expect(rest.headers['www-authenticate']).toBe('Bearer');
    expect(rest.body).toEqual({ message: MESSAGE, success: false, statusCode: 401 });
    const gql = await gw.request('POST', '/graphql', {
      token: null,
      headers,
      body: { query: VIEWER },
    });
    expect(gql.status).toBe(401);
    expect(gql.headers['www-authenticate']).toBe('Bearer');
    expect(gql.body.errors).toEqual([
      { message: MESSAGE, extensions: { code: 'UNAUTHENTICATED' } },
    ]);
  }

  it('rejects a request without a token', () => rejected(undefined));
  it('rejects a malformed header', async () => {
    await rejected('Bearer');
    await rejected(`Basic ${Buffer.from('admin:admin').toString('base64')}`);
    await rejected(`Bearer ${gw.adminToken} extra`);
  });
  it('rejects garbage', () => rejected('Bearer not.a.jwt'));
  /** A token record as issuing writes it, live for an hour: what the signature tests sign for. */
  async function liveRecord(): Promise<string> {
    const tokenId = newTokenId();
    await TokenModel.create({
      _id: tokenId,
      memberId,
      issuedBy: 'admin-token',
      issuedAt: new Date(Date.now() - 3600_000),
      expiresAt: new Date(Date.now() + 3600_000),
    });
    return tokenId;
  }

  it('rejects an expired token, though its record is live', async () => {
    const tokenId = await liveRecord();
    const { token } = await gw.app.tokenSigner.sign(
      { memberId, role: Role.MEMBER, tokenId },
      60,
      new Date(Date.now() - 3600_000),
    );
    await rejected(`Bearer ${token}`);
  });
  it('rejects a token signed with another key', async () => {
    const other = new TokenSigner({
      secret: new TextEncoder().encode('k'.repeat(40)),
      issuer: 'pipeline-gateway',
      audience: 'pipeline-gateway',
    });
    const tokenId = await liveRecord();
    await rejected(
      `Bearer ${(await other.sign({ memberId, role: Role.ADMIN, tokenId }, 600)).token}`,
    );
    // The same claims signed with the gateway's key authenticate: the key made the difference.
    const own = await gw.app.tokenSigner.sign({ memberId, role: Role.MEMBER, tokenId }, 600);
    expect((await gw.graphql(VIEWER, undefined, own.token)).status).toBe(200);
  });
  it('rejects alg none', () =>
    rejected(`Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims())}.`));
  it('rejects RS256 tokens', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'RS256' }).sign(privateKey);
    await rejected(`Bearer ${token}`);
  });
  it('rejects a token for another issuer or audience', async () => {
    const secret = (gw.app.tokenSigner as unknown as { options: { secret: Uint8Array } }).options
      .secret;
    for (const override of [{ iss: 'someone-else' }, { aud: 'another-api' }]) {
      const token = await new SignJWT({ ...claims(), ...override })
        .setProtectedHeader({ alg: 'HS256' })
        .sign(secret);
      await rejected(`Bearer ${token}`);
    }
  });
  it('rejects the token of a deleted member at once', async () => {
    const goneId = await insertMember(Role.MANAGER, 'team-b');
    const token = await gw.tokenFor(goneId);
    expect((await gw.graphql(VIEWER, undefined, token)).status).toBe(200);
    await MemberModel.deleteOne({ _id: goneId });
    await rejected(`Bearer ${token}`);
  });

  it('accepts the admin token', async () => {
    const res = await gw.graphql(VIEWER);
    expect(res.body).toEqual({
      data: { viewer: { subject: 'admin-token', role: 'ADMIN', memberId: null, teamId: null } },
    });
  });

  it('takes role and team from the member document, not the token', async () => {
    const id = await insertMember(Role.MEMBER, 'team-c');
    const token = await gw.tokenFor(id);
    await MemberModel.updateOne({ _id: id }, { $set: { role: Role.MANAGER, teamId: 'team-d' } });
    const res = await gw.graphql(VIEWER, undefined, token);
    expect(res.body.data.viewer).toEqual({
      subject: id,
      role: 'MANAGER',
      memberId: id,
      teamId: 'team-d',
    });
  });
});
