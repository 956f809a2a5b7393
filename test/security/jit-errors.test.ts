import {
  buildSchema,
  execute,
  GraphQLError,
  parse,
  type ExecutionResult,
  type GraphQLObjectType,
  type GraphQLScalarType,
} from 'graphql';
import { NotFoundError } from '../../src/errors';
import { judgeGraphQLError } from '../../src/graphql/format-error';
import { JitExecutor } from '../../src/graphql/jit/jit-executor';
import * as memberService from '../../src/services/member.service';
import { startGateway, type TestGateway } from '../helpers/gateway';

/**
 * A small schema whose resolvers fail in every way a field can: a coded error, a plain error,
 * null for a non-null field (after an await), a value a scalar refuses, an item of a list. Each
 * resolver counts its calls.
 */
function failingSchema() {
  const schema = buildSchema(`
    scalar Odd
    type Item { id: ID!, n: Int!, odd: Odd, kids: [Item!]!, loose: [Item] }
    type Query { item(bad: String): Item!, opt(bad: String): Item, coded: Int, plain: Int!, num(x: Int!): Int, list(xs: [Int!]!): Int }
  `);
  const calls: Record<string, number> = {};
  const counted =
    (name: string, resolve: (parent: any, args: any) => unknown) =>
    (parent: unknown, args: unknown): unknown => {
      calls[name] = (calls[name] ?? 0) + 1;
      return resolve(parent, args);
    };
  const item = (i: number, bad?: string) => ({ i, bad });
  (schema.getType('Odd') as GraphQLScalarType).serialize = (value: unknown) => {
    if (value === 'bad') throw new TypeError('Odd cannot represent "bad"');
    return value;
  };
  const itemFields = (schema.getType('Item') as GraphQLObjectType).getFields();
  itemFields.id.resolve = (p) => String(p.i);
  itemFields.n.resolve = counted('n', async (p) => (p.bad === 'n' ? null : p.i));
  itemFields.odd.resolve = counted('odd', (p) => (p.bad === 'odd' ? 'bad' : 'ok'));
  itemFields.kids.resolve = counted('kids', (p) => [
    item(1),
    item(2, p.bad === 'kid' ? 'n' : undefined),
    item(3),
  ]);
  itemFields.loose.resolve = counted('loose', () => [
    item(1),
    null,
    Promise.reject(new Error('item failed')),
  ]);
  const query = (schema.getType('Query') as GraphQLObjectType).getFields();
  query.item.resolve = counted('item', (_, { bad }) => item(1, bad));
  query.opt.resolve = counted('opt', (_, { bad }) => item(1, bad));
  query.coded.resolve = counted('coded', async () => {
    throw new NotFoundError('Thing nope not found');
  });
  query.plain.resolve = counted('plain', async () => {
    throw new Error('database exploded');
  });
  query.num.resolve = counted('num', (_, { x }) => x);
  query.list.resolve = counted('list', (_, { xs }) => xs.length);
  return { schema, calls };
}

/**
 * What Apollo answers before formatError: data, and each error as its normaliser renders it
 * (errorNormalize.ts, not exported: `extensions` must be an object, its code defaulted).
 */
function answer(result: ExecutionResult): unknown {
  const errors = (result.errors ?? []).map((error) => ({
    ...error.toJSON(),
    extensions: { ...error.extensions, code: error.extensions.code ?? 'INTERNAL_SERVER_ERROR' },
  }));
  return { hasData: 'data' in result, data: result.data, errors };
}

describe('compiled execution and errors', () => {
  it.each([
    '{ coded }',
    '{ plain }',
    '{ coded opt { id } }',
    '{ item(bad: "n") { id n } }',
    '{ opt(bad: "n") { n } coded }',
    '{ item(bad: "kid") { kids { id n } } }',
    '{ item { loose { id } } }',
    '{ item(bad: "odd") { odd } }',
    '{ a: opt(bad: "n") { n } b: opt { n kids { n } } }',
  ])('answers %s as graphql-js does, running each resolver once', async (query) => {
    const reference = failingSchema();
    const expected = await execute({ schema: reference.schema, document: parse(query) });
    const compiled = failingSchema();
    const jit = new JitExecutor(compiled.schema);
    const result = await jit.execute({
      document: parse(query),
      operationName: null,
      operation: 'query',
      variables: undefined,
      contextValue: {},
    });
    expect(answer(result)).toEqual(answer(expected));
    expect(result.errors?.length).toBeGreaterThan(0);
    // formatError judges each error alike (our coded errors found behind it, the rest internal).
    expect(result.errors!.map((error) => judgeGraphQLError(error).kind)).toEqual(
      expected.errors!.map((error) => judgeGraphQLError(error).kind),
    );
    for (const error of result.errors!) expect(error).toBeInstanceOf(GraphQLError);
    expect(compiled.calls).toEqual(reference.calls);
  });

  it('answers variables that do not coerce in graphql-js words, and runs no resolver', async () => {
    for (const [query, variables] of [
      ['query($x: Int!) { num(x: $x) }', { x: 'ten' }],
      ['query($xs: [Int!]!) { list(xs: $xs) }', { xs: [1, null] }],
    ] as const) {
      const reference = failingSchema();
      const expected = await execute({
        schema: reference.schema,
        document: parse(query),
        variableValues: variables,
      });
      const compiled = failingSchema();
      const result = await new JitExecutor(compiled.schema).execute({
        document: parse(query),
        operationName: null,
        operation: 'query',
        variables,
        contextValue: {},
      });
      expect(answer(result)).toEqual(answer(expected));
      expect(compiled.calls).toEqual({});
    }
  });

  it('runs a document with graphql-js until its compileAt-th execution, once each time', async () => {
    const { schema, calls } = failingSchema();
    const jit = new JitExecutor(schema, { compileAt: 2 });
    const document = parse('{ coded }');
    const answers = [];
    for (let i = 0; i < 3; i++)
      answers.push(
        answer(
          await jit.execute({
            document,
            operationName: null,
            operation: 'query',
            variables: undefined,
            contextValue: {},
          }),
        ),
      );
    expect(calls.coded).toBe(3);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });
});

describe('GraphQL errors over HTTP', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ env: { RATE_LIMIT: '0' } });
  });
  afterAll(async () => {
    await gw.stop();
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('runs a failing resolver once per request, the document compiled or not', async () => {
    const getMember = jest.spyOn(memberService, 'getMember');
    // The first request runs on graphql-js, the later ones compiled: each reads the member once.
    for (let i = 1; i <= 3; i++) {
      const res = await gw.graphql('query M($id: ID!) { viewer { role } member(id: $id) { id } }', {
        id: 'nobody',
      });
      expect(res.status).toBe(404); // the error's status: no data came
      expect(res.body).toEqual({
        data: null,
        errors: [
          {
            message: 'Member nobody not found',
            locations: [{ line: 1, column: 37 }],
            path: ['member'],
            extensions: { code: 'NOT_FOUND' },
          },
        ],
      });
      expect(getMember).toHaveBeenCalledTimes(i);
    }
  });

  it('hides an unexpected error the same way on both paths, running the resolver once', async () => {
    const getMember = jest
      .spyOn(memberService, 'getMember')
      .mockRejectedValue(new Error('disk on fire'));
    const answers = [];
    for (let i = 1; i <= 3; i++) {
      answers.push(
        (await gw.graphql('query P($id: ID!) { member(id: $id) { id } }', { id: 'x' })).body,
      );
      expect(getMember).toHaveBeenCalledTimes(i);
    }
    for (const body of answers) {
      expect(body.data).toBeNull();
      expect(body.errors).toHaveLength(1);
      expect(body.errors[0]).toMatchObject({
        path: ['member'],
        locations: [{ line: 1, column: 21 }],
        extensions: { code: 'INTERNAL_SERVER_ERROR' },
      });
      expect(body.errors[0].message).toMatch(/^Internal server error/);
      expect(body.errors[0].message).not.toMatch(/disk/);
    }
  });

  it('words a variable that does not coerce as graphql-js does on a compiled document', async () => {
    const query = 'query Page($n: Int!) { members(first: $n) { edges { cursor } } }';
    for (let i = 0; i < 2; i++) expect((await gw.graphql(query, { n: 1 })).status).toBe(200);
    const res = await gw.graphql(query, { n: 'ten' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      {
        message:
          'Variable "$n" got invalid value "ten"; Int cannot represent non-integer value: "ten"',
        locations: [{ line: 1, column: 12 }],
        extensions: { code: 'BAD_USER_INPUT' },
      },
    ]);
  });
});
