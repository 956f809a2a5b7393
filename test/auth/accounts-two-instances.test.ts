import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { rotateStoredAdminToken } from '../../src/auth/secrets';
import { loadConfig } from '../../src/config';
import { buildApp } from '../../src/server/build-app';
import { TEST_CACHE_MAX_AGE_MS } from '../helpers/cache-window';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { seedMember, seedTeam } from '../members/support/seed';

/**
 * Account changes made through one instance count on another instance's very next request, though
 * each keeps members, token records and the stored admin token in its own caches: instance A is
 * the test gateway, the others are apps built on the same database (as another process would be,
 * with caches of its own), in both database modes.
 */
let a: TestGateway;
const others: FastifyInstance[] = [];

/** Another instance on A's database; `shared`: its admin token is the one stored in the database. */
async function instance(shared = false): Promise<string> {
  const config = {
    ...loadConfig({
      LOG_LEVEL: 'silent',
      RATE_LIMIT: '0',
      CACHE_MAX_AGE_MS: String(TEST_CACHE_MAX_AGE_MS),
    }),
    port: 0,
    host: '127.0.0.1',
  };
  const app = await buildApp({
    connection: a.connection,
    config,
    secrets: {
      jwtSecret: a.jwtSecret,
      adminToken: a.adminToken,
      generatedAdminToken: null,
      sharedAdminToken: shared,
    },
  });
  others.push(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

async function call(
  url: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** The role a token authenticates with on `url`, or its HTTP status when it does not. */
async function roleOn(url: string, token: string): Promise<string | number> {
  const res = await call(url, token, 'POST', '/graphql', { query: '{ viewer { role } }' });
  return res.status === 200 ? res.body.data.viewer.role : res.status;
}

beforeAll(async () => {
  a = await startGateway({ env: { RATE_LIMIT: '0' } });
  await seedTeam(a, 'red');
});

afterAll(async () => {
  for (const app of others) await app.close();
  await a?.stop();
});

describe('member tokens across instances', () => {
  let b: string;
  beforeAll(async () => {
    b = await instance();
  });

  it('a revocation through one instance is a 401 on the other at its next request', async () => {
    const member = await seedMember(a, 'red');
    const first = await a.request('POST', '/auth/tokens', {
      body: { member_id: member.member_id },
    });
    const second = await a.request('POST', '/auth/tokens', {
      body: { member_id: member.member_id },
    });
    // Both instances have checked (and kept) both tokens' records.
    for (const url of [a.url, b])
      for (const { body } of [first, second]) expect(await roleOn(url, body.token)).toBe('MEMBER');

    expect((await a.request('DELETE', `/auth/tokens/${first.body.token_id}`)).status).toBe(200);
    expect(await roleOn(b, first.body.token)).toBe(401);
    expect(await roleOn(a.url, first.body.token)).toBe(401);

    const revoked = await call(b, a.adminToken, 'DELETE', `/auth/tokens/${second.body.token_id}`);
    expect(revoked.status).toBe(200);
    expect(await roleOn(a.url, second.body.token)).toBe(401);
    expect(await roleOn(b, second.body.token)).toBe(401);
  });

  it('a role change through one instance counts on the other at its next request, for tokens issued before', async () => {
    const member = await seedMember(a, 'red');
    const token = await a.tokenFor(member.member_id);
    expect(await roleOn(a.url, token)).toBe('MEMBER');
    expect(await roleOn(b, token)).toBe('MEMBER');

    const changed = await call(b, a.adminToken, 'PATCH', `/teams/members/${member.member_id}`, {
      role: 'admin',
    });
    expect(changed.status).toBe(200);
    expect(await roleOn(a.url, token)).toBe('ADMIN');
    expect(await roleOn(b, token)).toBe('ADMIN');
    const issued = await a.request('POST', '/auth/tokens', {
      token,
      body: { member_id: member.member_id },
    });
    expect(issued.status).toBe(200);

    expect(
      (await a.request('PATCH', `/teams/members/${member.member_id}`, { body: { role: 'member' } }))
        .status,
    ).toBe(200);
    expect(await roleOn(b, token)).toBe('MEMBER');
    const refused = await call(b, token, 'POST', '/auth/tokens', { member_id: member.member_id });
    expect(refused.status).toBe(403);
  });

  it("a deletion through one instance revokes the member's tokens, and those it issued, on the other", async () => {
    const admin = await seedMember(a, 'red', 'admin');
    const target = await seedMember(a, 'red');
    const adminToken = await a.tokenFor(admin.member_id);
    const minted = await call(b, adminToken, 'POST', '/auth/tokens', {
      member_id: target.member_id,
    });
    expect(minted.status).toBe(200);
    for (const url of [a.url, b]) {
      expect(await roleOn(url, adminToken)).toBe('ADMIN');
      expect(await roleOn(url, minted.body.token)).toBe('MEMBER');
    }
    expect((await a.request('DELETE', `/teams/members/${admin.member_id}`)).status).toBe(200);
    for (const url of [b, a.url]) {
      expect(await roleOn(url, adminToken)).toBe(401);
      expect(await roleOn(url, minted.body.token)).toBe(401);
    }
  });
});

describe('the admin token stored in the database', () => {
  it('is refused by every instance from its next request once rotated, and the new one accepted', async () => {
    const before = await rotateStoredAdminToken(a.connection);
    const c = await instance(true);
    const d = await instance(true);
    for (const url of [c, d]) expect(await roleOn(url, before)).toBe('ADMIN');

    const after = await rotateStoredAdminToken(a.connection);
    expect(after).not.toBe(before);
    for (const url of [c, d]) {
      expect(await roleOn(url, before)).toBe(401);
      expect(await roleOn(url, after)).toBe('ADMIN');
    }
    // Rotating it again leaves the member tokens of every instance alone.
    const member = await seedMember(a, 'red');
    const token = await a.tokenFor(member.member_id);
    expect(await roleOn(c, token)).toBe('MEMBER');
    await rotateStoredAdminToken(a.connection);
    expect(await roleOn(c, token)).toBe('MEMBER');
    expect(await roleOn(d, after)).toBe(401);
  });
});
