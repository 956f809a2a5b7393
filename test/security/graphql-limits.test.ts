import { getIntrospectionQuery } from 'graphql';
import { Role } from '../../src/auth/role';
import { insertMember } from '../auth/members.fixture';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { countCommands } from './write-counter';

/** `{ teams { members { edges { node { team { … } } } } } }` opens 5 levels; `inner` adds the rest. */
const nested = (inner: string): string =>
  `{ teams { members { edges { node { team { ${inner} } } } } } }`;

describe('GraphQL abuse limits (refused before any resolver or database work)', () => {
  let gw: TestGateway;
  let memberToken: string;
  beforeAll(async () => {
    gw = await startGateway();
    memberToken = await gw.tokenFor(await insertMember(Role.MEMBER));
  });
  afterAll(async () => {
    await gw.stop();
  });

  async function refused(
    query: string,
    variables?: Record<string, unknown>,
    token?: string | null,
  ) {
    const { result, all } = await countCommands(gw, () => gw.graphql(query, variables, token));
    expect(all).toBe(0); // admin token: no database round trip at all before the refusal
    expect(result.status).toBe(400);
    expect(result.body.data).toBeUndefined();
    return result.body.errors[0] as { message: string; extensions: { code: string } };
  }

  it('accepts depth 6 and refuses depth 7', async () => {
    const ok = await gw.graphql(nested('name'));
    expect(ok.status).toBe(200);
    expect(ok.body.errors).toBeUndefined();
    const error = await refused(nested('pipelines { id }'));
    expect(error).toMatchObject({
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      message: expect.stringContaining('depth'),
    });
  });

  it('counts depth through a fragment named __schema and through reused fragments', async () => {
    const viaSchemaFragment = `{ teams { members { edges { node { ...__schema } } } } }
      fragment __schema on Member { team { pipelines { id } } }`;
    expect((await refused(viaSchemaFragment)).extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const reused = `{ teams { ...T } } fragment T on Team { members { edges { node { team { ...U } } } } }
      fragment U on Team { pipelines { id } members { edges { cursor } } }`;
    expect((await refused(reused)).message).toContain('depth');
  });

  it('refuses a fragment cycle', async () => {
    const error = await refused(
      '{ teams { ...A } } fragment A on Team { members { edges { node { team { ...A } } } } }',
    );
    expect(error.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('accepts 15 aliases and refuses 16', async () => {
    const aliases = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `a${i}: viewer { role }`).join(' ')} }`;
    expect((await gw.graphql(aliases(15))).status).toBe(200);
    expect((await refused(aliases(16))).message).toMatch(/Too many aliases: 16/);
  });

  it('refuses 51 directives', async () => {
    const fields = (n: number) =>
      Array.from({ length: n }, () => 'role @include(if: true)').join(' ');
    expect((await gw.graphql(`{ viewer { ${fields(50)} } }`)).status).toBe(200);
    expect((await refused(`{ viewer { ${fields(51)} } }`)).message).toMatch(
      /Too many directives: 51/,
    );
  });

  it('refuses a document of more than 1000 tokens at parse time', async () => {
    const fields = Array.from({ length: 1001 }, () => '__typename').join(' ');
    const error = await refused(`{ ${fields} }`);
    expect(error.message).toMatch(/tokens/);
    expect(error.extensions.code).toBe('GRAPHQL_PARSE_FAILED');
  });

  it('refuses an operation whose estimated cost is over the limit', async () => {
    // teams (10 assumed) × pages of 100 members × their pipelines (10 assumed): 1 + 10 × (1 + 100 × 28) = 28 011.
    const member = 'id email firstname lastname role pipelines { id __typename }';
    const query = `{ teams { members(first: 100) { edges { node { ${member} } } } } }`;
    expect((await refused(query)).message).toBe(
      'Query cost 28011 exceeds the limit of 20000 (lower page sizes, time-series durations or metric counts, or select fewer nested lists)',
    );
    // The variable's value counts as well.
    const paged = `query($n: Int!) { teams { members(first: $n) { edges { node { ${member} } } } } }`;
    expect((await gw.graphql(paged, { n: 1 })).status).toBe(200);
    expect((await refused(paged, { n: 100 })).message).toMatch(/Query cost/);
  });

  it("counts a variable's default when the request does not send the variable", async () => {
    // teams (10) × pipelines (10) × pages of 100: 1 + 10 × (1 + 10 × (1 + 100 × 4)) = 40 111.
    const query =
      'query($n: Int! = 100) { teams { pipelines { opportunities(first: $n) { edges { node { id amount } } } } } }';
    expect((await refused(query)).message).toMatch(/^Query cost 40111 exceeds the limit of 20000/);
    expect((await refused(query, { n: 100 })).message).toMatch(/^Query cost 40111 /);
    expect((await gw.graphql(query, { n: 1 })).status).toBe(200);
  });

  it("counts the schema's default page size when `first` is absent", async () => {
    // `first: Int! = 20` in the schema: 1 + 10 × (1 + 10 × (1 + 20 × 11)) = 22 111.
    const node = 'id name amount outcome createdAt closedAt __typename i: id n: name';
    expect(
      (await refused(`{ teams { pipelines { opportunities { edges { node { ${node} } } } } } }`))
        .message,
    ).toMatch(/^Query cost 22111 /);
    expect(
      (
        await gw.graphql(
          `{ teams { pipelines { opportunities(first: 1) { edges { node { ${node} } } } } } }`,
        )
      ).status,
    ).toBe(200);
  });

  it('refuses a flood of long time series (finding 5) with its cost, before any work', async () => {
    // definitions (10) × pipelines (10) × 14 × (1 + 104 periods × (3 + points 1 + value 1)): 729 412.
    const series = Array.from(
      { length: 14 },
      (_, i) => `a${i + 1}: timeseries(metric: "win_rate", duration: 104) { points { value } }`,
    ).join(' ');
    const error = await refused(`query { snapshot { definitions { pipelines { ${series} } } } }`);
    expect(error).toEqual({
      message:
        'Query cost 729412 exceeds the limit of 20000 (lower page sizes, time-series durations or metric counts, or select fewer nested lists)',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
    // A member is refused alike; the duration of a variable's default counts too.
    const member = await gw.graphql(
      `query { snapshot { definitions { pipelines { ${series} } } } }`,
      undefined,
      memberToken,
    );
    expect(member.status).toBe(400);
    expect(member.body.errors[0].message).toMatch(/^Query cost 729412 /);
    const defaulted =
      'query($d: Int! = 104) { snapshot { definitions { pipelines { timeseries(metric: "win_rate", duration: $d) { points { value } } } } } }';
    expect((await refused(defaulted)).message).toMatch(/^Query cost 52112 /);
    expect((await gw.graphql(defaulted, { d: 8 })).status).not.toBe(400);
  });

  it('refuses a document whose fragments expand past the limit, before counting it all', async () => {
    const spreads = (name: string) => Array.from({ length: 40 }, () => `...${name}`).join(' ');
    const fields = Array.from({ length: 40 }, () => 'role').join(' ');
    const bomb = `{ viewer { ...A } } fragment A on Viewer { ${spreads('B')} }
      fragment B on Viewer { ${spreads('C')} } fragment C on Viewer { ${fields} }`;
    const expected = {
      message:
        'Query cost exceeds the limit of 20000: the operation has more than 20000 fields once its fragments are expanded (lower page sizes, time-series durations or metric counts, or select fewer nested lists)',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    };
    expect(await refused(bomb)).toEqual(expected);
    // The refusal is kept: the same document again is refused alike.
    expect(await refused(bomb)).toEqual(expected);
  });

  it('counts metrics by the number evaluated: all eight without names', async () => {
    const all = Array.from({ length: 15 }, (_, i) => `m${i}: metrics { value }`).join(' ');
    expect(
      (await refused(`{ snapshot { definitions { pipelines { ${all} } } } }`)).message,
    ).toMatch(/^Query cost 49512 /);
    const one = Array.from(
      { length: 15 },
      (_, i) => `m${i}: metrics(names: ["win_rate"]) { value }`,
    ).join(' ');
    expect(
      (await gw.graphql(`{ snapshot { definitions { pipelines { ${one} } } } }`)).status,
    ).not.toBe(400);
  });

  it('keeps the explorer default query under the cost limit', async () => {
    const fs = await import('node:fs/promises');
    const query = await fs.readFile(
      `${__dirname}/../../src/graphql/operations/explorer-overview.graphql`,
      'utf8',
    );
    const res = await gw.graphql(query);
    expect(res.body.errors?.map((e: { message: string }) => e.message).join() ?? '').not.toMatch(
      /cost|depth|alias/,
    );
  });

  it('caps page sizes at 100 through argument validation', async () => {
    const res = await gw.graphql('{ members(first: 99999999) { edges { cursor } } }');
    expect(res.body.data).toBeNull();
    expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('hides field suggestions', async () => {
    const error = await refused('{ viewr { role } }');
    expect(error.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(error.message).not.toMatch(/Did you mean/i);
  });

  it('allows introspection to the admin token (GraphiQL) and refuses it to a member', async () => {
    expect((await gw.graphql('{ __schema { queryType { name } } }')).body.data).toEqual({
      __schema: { queryType: { name: 'Query' } },
    });
    // GraphiQL's full schema query nests deeper than 6: the introspection fields are exempt from depth and cost.
    const full = await gw.graphql(
      getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }),
    );
    expect(full.status).toBe(200);
    expect(full.body.data.__schema.types.length).toBeGreaterThan(20);
    const member = await gw.graphql('{ __type(name: "Query") { name } }', undefined, memberToken);
    expect(member.status).toBe(400);
    expect(member.body.errors[0]).toMatchObject({
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      message: expect.stringContaining('introspection'),
    });
    // __typename is not introspection.
    expect((await gw.graphql('{ __typename }', undefined, memberToken)).body.data).toEqual({
      __typename: 'Query',
    });
  });

  it('refuses batched requests, empty and non-string queries', async () => {
    for (const body of [
      [{ query: '{ viewer { role } }' }, { query: '{ viewer { role } }' }],
      { query: '' },
      { query: 42 },
      { query: { a: 1 } },
      {},
    ]) {
      const { result, writes } = await countCommands(gw, () =>
        gw.request('POST', '/graphql', { body }),
      );
      expect(writes).toBe(0);
      expect(result.status).toBe(400);
      expect(result.body.errors?.[0]?.extensions?.code ?? result.body.code).toMatch(
        /BAD_REQUEST|BAD_USER_INPUT|GRAPHQL/,
      );
    }
  });

  it('refuses a syntax error and wrong variable types before any work, and writes nothing', async () => {
    const cases: Array<[string, Record<string, unknown> | undefined]> = [
      ['mutation { setCurrency(currency: "EUR") { currency }', undefined],
      ['mutation ($c: String!) { setCurrency(currency: $c) { currency } }', { c: 42 }],
      [
        'mutation ($t: [Float!]!) { setMemberTargets(input: { memberId: "m", year: 2026, targets: $t }) { year } }',
        { t: ['lots'] },
      ],
      ['mutation ($p: Period!) { setPeriod(period: $p) { period } }', { p: 'FORTNIGHTLY' }],
    ];
    for (const [query, variables] of cases) {
      const { result, all } = await countCommands(gw, () => gw.graphql(query, variables));
      expect(all).toBe(0);
      expect(result.status).toBe(400);
      expect(result.body.errors[0].extensions.code).toMatch(
        /^(GRAPHQL_PARSE_FAILED|BAD_USER_INPUT)$/,
      );
    }
  });

  it('refuses a GET carrying a mutation with 405 and writes nothing', async () => {
    const { result, writes } = await countCommands(gw, () =>
      gw.request('GET', '/graphql', {
        query: { query: 'mutation { createTeam(input: { id: "x1", name: "X" }) { id } }' },
        headers: { 'apollo-require-preflight': 'true' },
      }),
    );
    expect(result.status).toBe(405);
    expect(writes).toBe(0);
  });

  it('refuses a simple GET without a preflight header (CSRF prevention)', async () => {
    const res = await gw.request('GET', '/graphql', {
      query: { query: '{ viewer { role } }' },
      headers: { accept: 'application/json' },
    });
    expect(res.status).toBe(400);
  });
});

describe('INTROSPECTION setting', () => {
  it('off: refused even to the admin token; all: allowed to members', async () => {
    const off = await startGateway({ env: { INTROSPECTION: 'off' } });
    try {
      const res = await off.graphql('{ __schema { queryType { name } } }');
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    } finally {
      await off.stop();
    }
    const all = await startGateway({ env: { INTROSPECTION: 'all' } });
    try {
      const token = await all.tokenFor(await insertMember(Role.MEMBER));
      expect(
        (await all.graphql('{ __schema { queryType { name } } }', undefined, token)).body.data
          .__schema.queryType.name,
      ).toBe('Query');
    } finally {
      await all.stop();
    }
  });
});
