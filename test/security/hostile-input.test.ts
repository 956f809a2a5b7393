import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { generateKeyPair, SignJWT } from 'jose';
import { Role } from '../../src/auth/role';
import { MemberModel } from '../../src/models/member.model';
import { insertMember } from '../auth/members.fixture';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { countCommands } from './write-counter';

/**
 * Runs with the default settings (rate limiting on included): the property-based tests spread
 * their cases over several admin callers so that each stays inside the default limit.
 */

describe('hostile input: refused with a clear status, nothing written', () => {
  let gw: TestGateway;
  let memberA: string;
  let memberB: string;
  let managerA: string;
  let memberToken: string;
  let managerToken: string;
  const adminCallers: string[] = [];
  let nextCaller = 0;
  /** The next of several admin tokens, so that thousands of cases stay inside each caller's rate limit. */
  const anAdmin = () => adminCallers[nextCaller++ % adminCallers.length];
  beforeAll(async () => {
    gw = await startGateway();
    memberA = await insertMember(Role.MEMBER, 'team-a');
    memberB = await insertMember(Role.MEMBER, 'team-b');
    managerA = await insertMember(Role.MANAGER, 'team-a');
    memberToken = await gw.tokenFor(memberA);
    managerToken = await gw.tokenFor(managerA);
    for (let i = 0; i < 8; i += 1)
      adminCallers.push(await gw.tokenFor(await insertMember(Role.ADMIN, 'team-a')));
    expect(
      (await gw.request('POST', '/teams', { body: { team_id: 'team-a', name: 'A' } })).status,
    ).toBe(200);
  });
  afterAll(async () => {
    await gw.stop();
  });

  /** Sends, asserts the status and that no write command reached the database. */
  async function refused(status: number, send: () => Promise<{ status: number; body: any }>) {
    const { result, writes } = await countCommands(gw, send);
    expect({ status: result.status, writes }).toEqual({ status, writes: 0 });
    return result.body;
  }

  describe('transport', () => {
    it('malformed JSON (REST and GraphQL)', async () => {
      const raw = { body: '{"team_id": "x", ', headers: { 'content-type': 'application/json' } };
      expect((await refused(400, () => gw.request('POST', '/teams', raw))).message).toMatch(
        /^Malformed JSON/,
      );
      expect(
        (await refused(400, () => gw.request('POST', '/graphql', raw))).errors[0].extensions.code,
      ).toBe('BAD_USER_INPUT');
    });

    it('oversized body', async () => {
      const body = { team_id: 'big', name: 'x'.repeat(gw.config.bodyLimit) };
      expect((await refused(413, () => gw.request('POST', '/teams', { body }))).statusCode).toBe(
        413,
      );
    });

    it('bytes that are not UTF-8, and lone surrogates, are refused rather than replaced (REST and GraphQL)', async () => {
      const latin1 = Buffer.concat([
        Buffer.from('{"team_id":"utf","name":"caf'),
        Buffer.from([0xe9]),
        Buffer.from('"}'),
      ]);
      const headers = { 'content-type': 'application/json' };
      expect(
        (await refused(400, () => gw.request('POST', '/teams', { body: latin1, headers }))).message,
      ).toBe('The request body is not valid UTF-8');
      const gqlBytes = Buffer.concat([
        Buffer.from('{"query":"mutation { createTeam(input: { id: \\"utf\\", name: \\"caf'),
        Buffer.from([0xff]),
        Buffer.from('\\" }) { id } }"}'),
      ]);
      expect(
        (await refused(400, () => gw.request('POST', '/graphql', { body: gqlBytes, headers })))
          .errors[0].extensions.code,
      ).toBe('BAD_USER_INPUT');
      const surrogate = await refused(400, () =>
        gw.request('POST', '/teams', { body: '{"team_id":"utf","name":"a\\ud800b"}', headers }),
      );
      expect(surrogate.errors).toEqual([
        { field: 'name', message: expect.stringContaining('lone surrogate') },
      ]);
      const gql = await refused(400, () =>
        gw.graphql('mutation($n: String!) { createTeam(input: { id: "utf", name: $n }) { id } }', {
          n: 'a\udc00',
        }),
      );
      expect(gql.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      // Well-formed text outside ASCII is of course fine.
      expect(
        (await gw.request('POST', '/teams', { body: { team_id: 'utf-ok', name: 'Café 😀' } }))
          .status,
      ).toBe(200);
      expect((await gw.request('GET', '/teams/utf-ok')).body.team.name).toBe('Café 😀');
    });

    it('automatic persisted queries are off: a hash alone runs nothing', async () => {
      const hashOnly = {
        extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } },
      };
      // 200, as the APQ protocol answers, so that a client falls back to sending the text.
      const res = await refused(200, () => gw.request('POST', '/graphql', { body: hashOnly }));
      expect(res.data).toBeUndefined();
      expect(res.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
      // The text with a hash is not kept either: the hash alone still runs nothing.
      const query = '{ teams { id } }';
      const sha256Hash = createHash('sha256').update(query).digest('hex');
      expect(
        (
          await gw.request('POST', '/graphql', {
            body: { query, extensions: { persistedQuery: { version: 1, sha256Hash } } },
          })
        ).body.errors[0].extensions.code,
      ).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
      const again = await gw.request('POST', '/graphql', {
        body: { extensions: { persistedQuery: { version: 1, sha256Hash } } },
      });
      expect(again.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
    });

    it('wrong content type', async () => {
      const res = await refused(415, () =>
        gw.request('POST', '/teams', {
          body: 'team_id=x&name=y',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
      );
      expect(res.message).toMatch(/must be JSON/);
    });

    it('NaN, 1e309, NUL bytes and over-long strings', async () => {
      const raw = (text: string) => ({
        body: text,
        headers: { 'content-type': 'application/json' },
      });
      await refused(400, () => gw.request('POST', '/teams', raw('{"team_id":"n1","name":NaN}')));
      await refused(400, () =>
        gw.request('POST', '/settings/currencies', raw('{"currency":1e309}')),
      );
      await refused(400, () =>
        gw.request(
          'POST',
          `/teams/members/${memberA}/targets`,
          raw(`{"year":2026,"targets":[1e309,1,1,1]}`),
        ),
      );
      await refused(400, () =>
        gw.request('POST', '/teams', { body: { team_id: 'n2', name: 'a\u0000b' } }),
      );
      await refused(400, () =>
        gw.request('POST', '/teams', { body: { team_id: 'n3', name: 'x'.repeat(201) } }),
      );
      const gql = await refused(400, () =>
        gw.graphql('mutation($n: String!) { createTeam(input: { name: $n }) { id } }', {
          n: 'a\u0000b',
        }),
      );
      expect(gql.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      const wrongType = await refused(400, () =>
        gw.graphql('query($n: Int!) { members(first: $n) { edges { cursor } } }', { n: 'ten' }),
      );
      expect(wrongType.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    });
  });

  describe('authentication: one identical 401', () => {
    it('for no token, garbage, expired, bad signature, alg none, RS256, wrong issuer or audience', async () => {
      const secret = gw.jwtSecret;
      const claims = {
        role: 'member',
        sub: memberA,
        iss: 'pipeline-gateway',
        aud: 'pipeline-gateway',
      };
      const now = Math.floor(Date.now() / 1000);
      const hs = (override: Record<string, unknown>, exp = now + 600) =>
        new SignJWT({ ...claims, ...override })
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuedAt()
          .setExpirationTime(exp)
          .sign(secret);
      const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const { privateKey } = await generateKeyPair('RS256');
      const tokens: Array<string | null> = [
        null,
        'garbage',
        await hs({}, now - 10),
        await new SignJWT(claims)
          .setProtectedHeader({ alg: 'HS256' })
          .setExpirationTime(now + 600)
          .sign(new TextEncoder().encode('another-secret-another-secret-0123456')),
        `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...claims, exp: now + 600 })}.`,
        await new SignJWT(claims)
          .setProtectedHeader({ alg: 'RS256' })
          .setExpirationTime(now + 600)
          .sign(privateKey),
        await hs({ iss: 'someone-else' }),
        await hs({ aud: 'someone-else' }),
        // Validly signed, but naming the bootstrap admin's reserved subject: no way to its identity.
        await hs({ sub: 'admin-token', role: 'admin' }),
      ];
      const bodies = new Set<string>();
      for (const token of tokens) {
        const rest = await refused(401, () =>
          gw.request('POST', '/teams', { token, body: { team_id: 'auth-x', name: 'X' } }),
        );
        bodies.add(JSON.stringify(rest));
        const gql = await refused(401, () =>
          gw.graphql(
            'mutation { createTeam(input: { id: "auth-y", name: "Y" }) { id } }',
            undefined,
            token,
          ),
        );
        expect(gql.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      }
      expect(bodies.size).toBe(1);
    });
  });

  describe('authorisation', () => {
    it('refuses every mutation to a member with 403 and leaves data unchanged (REST and GraphQL)', async () => {
      const before = await MemberModel.countDocuments();
      const rest: Array<[string, string, unknown]> = [
        ['POST', '/teams', { team_id: 'm-team', name: 'M' }],
        [
          'POST',
          '/teams/members',
          {
            lastname: 'L',
            firstname: 'F',
            email: 'f@example.com',
            role: 'member',
            memberOf: { team_id: 'team-a' },
          },
        ],
        ['POST', `/teams/members/${memberB}`, { team_id: 'team-a' }],
        ['DELETE', `/teams/members/${memberB}`, undefined],
        ['POST', '/settings/currencies', { currency: 'USD' }],
        ['POST', '/settings/periods', { period: 'monthly' }],
        ['POST', `/teams/members/${memberB}/targets`, { year: 2026, targets: [1, 2, 3, 4] }],
        ['POST', '/auth/tokens', { member_id: memberB }],
        [
          'POST',
          '/crm/imports',
          { pipelines: { results: [] }, owners: { results: [] }, deals: [] },
        ],
      ];
      for (const [method, path, body] of rest) {
        const res = await refused(403, () =>
          gw.request(method, path, { token: memberToken, body }),
        );
        expect(res).toMatchObject({ success: false, statusCode: 403 });
      }
      const mutations = [
        'mutation { createTeam(input: { id: "m-team", name: "M" }) { id } }',
        `mutation { createMember(input: { lastname: "L", firstname: "F", email: "g@example.com", role: MEMBER, teamId: "team-a" }) { id } }`,
        `mutation { attachMember(memberId: "${memberB}", teamId: "team-a") { id } }`,
        `mutation { deleteMember(id: "${memberB}") }`,
        'mutation { setCurrency(currency: "USD") { currency } }',
        'mutation { setPeriod(period: MONTHLY) { period } }',
        `mutation { issueToken(memberId: "${memberB}") { token } }`,
      ];
      for (const mutation of mutations) {
        const { result, writes } = await countCommands(gw, () =>
          gw.graphql(mutation, undefined, memberToken),
        );
        expect(writes).toBe(0);
        expect(result.body.errors?.[0]?.extensions?.code).toMatch(/FORBIDDEN|BAD_USER_INPUT/);
      }
      expect(await MemberModel.countDocuments()).toBe(before);
      expect((await MemberModel.findById(memberB).lean())?.teamId).toBe('team-b');
    });

    it("refuses a member another member's targets", async () => {
      await refused(403, () =>
        gw.request('GET', `/teams/members/${memberB}/targets`, { token: memberToken }),
      );
      const gql = await gw.graphql(
        `{ memberTargets(memberId: "${memberB}") { year } }`,
        undefined,
        memberToken,
      );
      expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
    });

    it('refuses role escalation through a body field', async () => {
      // A member may not attach anyone: the route's role gate answers before the body is read.
      const gated = await refused(403, () =>
        gw.request('POST', `/teams/members/${memberA}`, {
          token: memberToken,
          body: { team_id: 'team-a', role: 'admin' },
        }),
      );
      expect(gated.message).toBe('A member may not attach members; an admin or a manager may');
      // A manager may attach, so the body is read, and `role` is no field of it.
      const unknown = await refused(400, () =>
        gw.request('POST', `/teams/members/${memberA}`, {
          token: managerToken,
          body: { team_id: 'team-a', role: 'admin' },
        }),
      );
      expect(unknown.errors).toEqual([
        { field: 'role', message: 'unknown field; expected one of: member_id, team_id' },
      ]);
      const created = await refused(403, () =>
        gw.request('POST', '/teams/members', {
          token: managerToken,
          body: {
            lastname: 'E',
            firstname: 'E',
            email: 'esc@example.com',
            role: 'admin',
            memberOf: { team_id: 'team-a' },
          },
        }),
      );
      expect(created.statusCode).toBe(403);
      expect((await MemberModel.findById(memberA).lean())?.role).toBe('member');
    });
  });

  describe('operator and prototype injection anywhere (property-based)', () => {
    const hostileKey = fc.constantFrom(
      '$gt',
      '$where',
      '$expr',
      '$ne',
      '$regex',
      '__proto__',
      'constructor',
      'prototype',
    );
    const hostileValue = hostileKey.chain((key) =>
      fc
        .constantFrom<unknown>('', '1', 1, { polluted: true }, { prototype: { polluted: true } }, [
          'x',
        ])
        .map((value) => ({ key, value })),
    );
    /** Puts `{ [key]: value }` at a random place in an otherwise valid body (as JSON text, so __proto__ survives). */
    const inject = (
      base: Record<string, unknown>,
      path: string[],
      key: string,
      value: unknown,
    ): string => {
      const marker = '"__HOSTILE__"';
      const clone = structuredClone(base) as Record<string, any>;
      let target = clone;
      for (const step of path) {
        if (typeof target[step] !== 'object' || target[step] === null) target[step] = {};
        target = target[step];
      }
      target.__HOSTILE__ = true;
      return JSON.stringify(clone).replace(
        `${marker}:true`,
        `${JSON.stringify(key)}:${JSON.stringify(value)}`,
      );
    };
    const bodies: Array<{
      method: string;
      path: string;
      base: Record<string, unknown>;
      fields: string[];
    }> = [
      {
        method: 'POST',
        path: '/teams',
        base: { team_id: 'inj', name: 'Inj' },
        fields: ['name', 'team_id'],
      },
      {
        method: 'POST',
        path: '/teams/members',
        base: {
          lastname: 'L',
          firstname: 'F',
          email: 'inj@example.com',
          role: 'member',
          memberOf: { team_id: 'team-a' },
        },
        fields: ['memberOf', 'email', 'role'],
      },
      {
        method: 'POST',
        path: '/settings/currencies',
        base: { currency: 'USD' },
        fields: ['currency'],
      },
      { method: 'GET', path: '/teams/members', base: { limit: 5 }, fields: ['team_id', 'role'] },
    ];

    it('REST bodies: 400, no write, no pollution', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...bodies),
          fc.boolean(),
          hostileValue,
          async (route, nested, { key, value }) => {
            const field = route.fields[0];
            const text = inject(route.base, nested ? [field] : [], key, value);
            const { result, writes } = await countCommands(gw, () =>
              gw.request(route.method, route.path, {
                token: anAdmin(),
                body: text,
                headers: { 'content-type': 'application/json' },
              }),
            );
            expect(writes).toBe(0);
            expect(result.status).toBe(400);
            expect(({} as Record<string, unknown>).polluted).toBeUndefined();
          },
        ),
        { numRuns: 600 },
      );
    });

    it('GraphQL variables: BAD_USER_INPUT, no write, no pollution', async () => {
      const operations = [
        {
          query: 'mutation($input: CreateTeamInput!) { createTeam(input: $input) { id } }',
          base: { input: { id: 'gi', name: 'G' } },
          at: ['input'],
        },
        {
          query:
            'mutation($input: CrmImportInput!) { importCrmData(input: $input) { snapshotId } }',
          base: { input: { pipelines: { results: [] }, owners: { results: [] }, deals: [] } },
          at: ['input', 'pipelines'],
        },
        {
          query: 'query($t: ID) { members(teamId: $t) { edges { cursor } } }',
          base: { t: 'team-a' },
          at: ['t'],
        },
      ];
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...operations),
          fc.nat(1),
          hostileValue,
          async (operation, depth, { key, value }) => {
            const variables = inject(operation.base, operation.at.slice(0, depth + 1), key, value);
            const text = `{"query":${JSON.stringify(operation.query)},"variables":${variables}}`;
            const { result, writes } = await countCommands(gw, () =>
              gw.request('POST', '/graphql', {
                token: anAdmin(),
                body: text,
                headers: { 'content-type': 'application/json' },
              }),
            );
            expect(writes).toBe(0);
            expect(result.body.data ?? null).toBeNull();
            expect(result.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
            expect(({} as Record<string, unknown>).polluted).toBeUndefined();
          },
        ),
        { numRuns: 600 },
      );
    });

    it('random JSON bodies never cause a 5xx or a write to a read route', async () => {
      await fc.assert(
        fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (value) => {
          const { result, writes } = await countCommands(gw, () =>
            gw.request('POST', '/teams', {
              token: anAdmin(),
              body: JSON.stringify(value),
              headers: { 'content-type': 'application/json' },
            }),
          );
          expect(result.status).toBeLessThan(500);
          expect(result.status).not.toBe(429);
          if (result.status !== 200) expect(writes).toBe(0);
        }),
        { numRuns: 800 },
      );
    });
  });
});
