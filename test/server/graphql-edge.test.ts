import { GraphQLError, locatedError } from 'graphql';
import pino from 'pino';
import { Role } from '../../src/auth/role';
import { BadUserInputError } from '../../src/errors';
import { createFormatError } from '../../src/graphql/format-error';
import { ErrorRequestIds } from '../../src/graphql/error-request-ids';
import { insertMember } from '../auth/members.fixture';
import { itEmbeddedOnly, STOPS_THE_DATABASE } from '../helpers/database-mode';
import { startGateway, type TestGateway } from '../helpers/gateway';

describe('formatError', () => {
  const lines: string[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => lines.push(line) });
  const errorIds = new ErrorRequestIds();
  const format = createFormatError(logger, errorIds);

  it('hides an internal error behind a generic message with the request id, and logs it', () => {
    const thrown = locatedError(new Error('E11000 at mongodb://secret-host/db'), [], ['viewer']);
    errorIds.tag(thrown, 'req-42');
    const formatted = format({ message: thrown.message, path: ['viewer'] }, thrown);
    expect(formatted).toEqual({
      message: 'Internal server error (request id req-42)',
      path: ['viewer'],
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
    expect(lines.join('')).toContain('secret-host');
  });

  it('passes ErrorWithCode with its code and field errors', () => {
    const error = new BadUserInputError('Invalid arguments: x', [{ field: 'x', message: 'bad' }]);
    expect(format({ message: 'ignored' }, locatedError(error, [], ['f']))).toEqual({
      message: 'Invalid arguments: x',
      extensions: { code: 'BAD_USER_INPUT', errors: [{ field: 'x', message: 'bad' }] },
    });
  });

  it('maps an unreachable database, even wrapped as a context failure, to SERVICE_UNAVAILABLE', () => {
    const cause = Object.assign(new Error('Server selection timed out after 3000 ms'), {
      name: 'MongoServerSelectionError',
    });
    const wrapped = new GraphQLError(`Context creation failed: ${cause.message}`, {
      originalError: cause,
    });
    expect(format({ message: wrapped.message }, wrapped)).toEqual({
      message: 'The database is unreachable; try again shortly',
      extensions: { code: 'SERVICE_UNAVAILABLE' },
    });
  });

  it('never throws, even on values that are not errors', () => {
    expect(
      format(
        { message: 'x' },
        {
          toString: () => {
            throw new Error('boom');
          },
        },
      ).extensions,
    ).toEqual({ code: 'INTERNAL_SERVER_ERROR' });
  });
});

describe('GraphQL over HTTP', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw.stop();
  });

  it('serves queries over GET', async () => {
    const res = await gw.request('GET', '/graphql', {
      query: { query: '{ viewer { role } }' },
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { viewer: { role: 'ADMIN' } } });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses mutations over GET', async () => {
    const res = await gw.request('GET', '/graphql', {
      query: { query: 'mutation { issueToken(memberId: "x") { token } }' },
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(res.status).toBe(405);
  });

  it('reports syntax and validation errors with their codes and 400', async () => {
    const syntax = await gw.graphql('{ viewer { ');
    expect(syntax.status).toBe(400);
    expect(syntax.body.errors[0].extensions).toEqual({ code: 'GRAPHQL_PARSE_FAILED' });
    const invalid = await gw.graphql('{ viewer { password } }');
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors[0]).toMatchObject({
      message: expect.stringContaining('password'),
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
  });

  it('answers body problems on /graphql as GraphQL errors', async () => {
    const malformed = await gw.request('POST', '/graphql', {
      body: '{"query": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT' });
    expect(malformed.body.errors[0].message).toMatch(/^Malformed JSON/);
    const text = await gw.request('POST', '/graphql', {
      body: '{ viewer { role } }',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    expect(text.body.errors[0].extensions).toEqual({ code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('never sends stack traces', async () => {
    const res = await gw.graphql('{ viewer { role } ', undefined);
    expect(JSON.stringify(res.body)).not.toContain('stacktrace');
  });

  itEmbeddedOnly(
    'answers 503 when the database is gone while authenticating a member',
    STOPS_THE_DATABASE,
    async () => {
      const token = await gw.tokenFor(await insertMember(Role.MEMBER));
      await gw.server!.stop();
      const res = await gw.graphql('{ viewer { role } }', undefined, token);
      expect(res.status).toBe(503);
      expect(res.body.errors).toEqual([
        {
          message: 'The database is unreachable; try again shortly',
          extensions: { code: 'SERVICE_UNAVAILABLE' },
        },
      ]);
    },
  );
});
