import { randomUUID } from 'node:crypto';
import { IdempotencyRecordModel } from '../../src/models/idempotency-record.model';
import { TeamModel } from '../../src/models/team.model';
import { CreateTeamBody } from '../../src/rest/inputs/team.inputs';
import { ok, type RouteDefinition } from '../../src/rest/route-definition';
import { EVERY_ROLE } from '../../src/rest/route-roles';
import { createTeam } from '../../src/services/team.service';
import { startGateway, type TestGateway } from '../helpers/gateway';

const TIMEOUT_MS = 1000;

/** A gate the test opens: the gated write waits for it before it writes. */
function closedGate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}
let gate = closedGate();

// Fault injection: a team creation that waits for the test's gate, so it can outlive the time
// budget and be retried while it runs.
const GATED: RouteDefinition<CreateTeamBody> = {
  method: 'POST',
  path: '/test/gated-teams',
  summary: 'gated team creation',
  tag: 'Operations',
  authenticated: true,
  roles: EVERY_ROLE,
  input: CreateTeamBody,
  response: {},
  handler: async (ctx, input) => {
    await gate.opened;
    const team = await createTeam(ctx, { teamId: input.team_id, name: input.name });
    return ok('Team created', { team: { team_id: team._id, name: team.name } });
  },
};

// Fault injection: a write the database fails under, after it started.
let failedWrites = 0;
const DATABASE_FAILS: RouteDefinition = {
  method: 'POST',
  path: '/test/database-fails',
  summary: 'a write the database fails under',
  tag: 'Operations',
  authenticated: true,
  roles: EVERY_ROLE,
  response: {},
  handler: async () => {
    failedWrites += 1;
    throw Object.assign(new Error('connection 3 to 10.0.0.5:27017 closed'), {
      name: 'MongoNetworkError',
    });
  },
};

const key = (): Record<string, string> => ({ 'idempotency-key': randomUUID() });

describe('Idempotency-Key on writes', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({
      env: { REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) },
      extraRoutes: [GATED as RouteDefinition, DATABASE_FAILS],
    });
  });
  afterAll(async () => {
    gate.open();
    await gw.stop();
  });

  it('replays the first answer to a retry with the same key, and writes once', async () => {
    const headers = key();
    const first = await gw.request('POST', '/teams', { body: { name: 'Replayed' }, headers });
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await gw.request('POST', '/teams', { body: { name: 'Replayed' }, headers });
    expect(again).toMatchObject({ status: 200, body: first.body });
    expect(again.headers).toMatchObject({
      'idempotent-replayed': 'true',
      'content-type': 'application/json; charset=utf-8',
    });
    expect(await TeamModel.countDocuments({ name: 'Replayed' })).toBe(1);
    // Without a key, the same body is a new request.
    expect((await gw.request('POST', '/teams', { body: { name: 'Replayed' } })).status).toBe(200);
    expect(await TeamModel.countDocuments({ name: 'Replayed' })).toBe(2);
  });

  it('replays an error answer too: a 409 is what happened', async () => {
    await gw.request('POST', '/teams', { body: { team_id: 'taken', name: 'Taken' } });
    const headers = key();
    const first = await gw.request('POST', '/teams', {
      body: { team_id: 'taken', name: 'Again' },
      headers,
    });
    expect(first.status).toBe(409);
    const again = await gw.request('POST', '/teams', {
      body: { team_id: 'taken', name: 'Again' },
      headers,
    });
    expect(again).toMatchObject({ status: 409, body: first.body });
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('answers a write that outlives its budget with its outcome unknown, 409 while it runs, then its answer', async () => {
    gate = closedGate();
    const headers = key();
    const body = { team_id: 'late-team', name: 'Late' };
    const first = await gw.request('POST', '/test/gated-teams', { body, headers });
    expect(first.status).toBe(503);
    expect(first.body).toEqual({
      message: `The write did not complete within ${TIMEOUT_MS} ms and carries on: its outcome is not known yet; retry with the same Idempotency-Key to learn it (409 while it is still running, then its answer)`,
      success: false,
      statusCode: 503,
    });
    expect(first.headers['retry-after']).toBe('1');

    const running = await gw.request('POST', '/test/gated-teams', { body, headers });
    expect(running.status).toBe(409);
    expect(running.body.message).toMatch(
      /^A request with this Idempotency-Key \(POST \/test\/gated-teams, started \d{4}-\d\d-\d\dT[\d:.]+Z\) is still being processed: retry with the same key once it has finished to get its answer$/,
    );
    expect(running.headers['retry-after']).toBe('1');

    gate.open();
    let answer = running;
    for (let round = 0; answer.status === 409 && round < 50; round += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await gw.request('POST', '/test/gated-teams', { body, headers });
    }
    expect(answer.status).toBe(200);
    expect(answer.headers['idempotent-replayed']).toBe('true');
    expect(answer.body).toMatchObject({ team: { team_id: 'late-team', name: 'Late' } });
    expect(await TeamModel.countDocuments({ _id: 'late-team' })).toBe(1);
  });

  it('refuses a request with the key at once while the first one runs', async () => {
    gate = closedGate();
    const headers = key();
    const body = { team_id: 'first-of-two', name: 'First' };
    // The first holds the route's gate; a request with the same key meanwhile is refused at once.
    const first = gw.request('POST', '/test/gated-teams', { body, headers });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = await gw.request('POST', '/test/gated-teams', { body, headers });
    expect(second.status).toBe(409);
    expect((await first).status).toBe(503);
    gate.open();
  });

  it('answers 422 for the same key with another body or path, and writes nothing', async () => {
    const headers = key();
    expect(
      (await gw.request('POST', '/teams', { body: { team_id: 'k-one', name: 'One' }, headers }))
        .status,
    ).toBe(200);
    const otherBody = await gw.request('POST', '/teams', {
      body: { team_id: 'k-two', name: 'Two' },
      headers,
    });
    expect(otherBody.status).toBe(422);
    expect(otherBody.body).toEqual({
      message: expect.stringMatching(
        /^This Idempotency-Key was first used \d{4}-\d\d-\d\dT[\d:.]+Z for POST \/teams with another body; a key names one request: send a new key with a new request$/,
      ),
      success: false,
      statusCode: 422,
    });
    const otherPath = await gw.request('POST', '/settings/currencies', {
      body: { currency: 'EUR' },
      headers,
    });
    expect(otherPath.status).toBe(422);
    expect(otherPath.body.message).toContain('for POST /teams;');
    expect(await TeamModel.exists({ _id: 'k-two' })).toBeNull();
    expect((await gw.request('GET', '/settings/currencies')).status).toBe(404);
  });

  it('keeps keys per caller', async () => {
    await gw.request('POST', '/teams', { body: { team_id: 'callers', name: 'Callers' } });
    const manager = await gw.request('POST', '/teams/members', {
      body: {
        lastname: 'Keys',
        firstname: 'Manager',
        email: 'manager.keys@example.com',
        role: 'manager',
        memberOf: { team_id: 'callers' },
      },
    });
    const token = await gw.tokenFor(manager.body.member.member_id);
    const headers = key();
    expect(
      (await gw.request('POST', '/teams', { body: { name: 'Admin keyed' }, headers })).status,
    ).toBe(200);
    const theirs = await gw.request('POST', '/teams/members', {
      token,
      headers,
      body: {
        lastname: 'Keys',
        firstname: 'Member',
        email: 'member.keys@example.com',
        role: 'member',
        memberOf: { team_id: 'callers' },
      },
    });
    expect(theirs.status).toBe(200);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
  });

  it('forgets a key 24 hours after its first use (a TTL index removes its record)', async () => {
    const headers = key();
    const first = await gw.request('POST', '/teams', { body: { name: 'Expiring' }, headers });
    expect(first.status).toBe(200);
    const record = await IdempotencyRecordModel.findOne({ request: 'POST /teams' })
      .sort({ startedAt: -1 })
      .lean();
    expect(record!.expiresAt.getTime() - record!.startedAt.getTime()).toBe(24 * 3600_000);
    // A day later (the TTL monitor may not have passed yet): the key is new again.
    await IdempotencyRecordModel.updateOne(
      { _id: record!._id },
      { $set: { expiresAt: new Date(Date.now() - 1000) } },
    );
    const later = await gw.request('POST', '/teams', { body: { name: 'Expiring' }, headers });
    expect(later.status).toBe(200);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.body.team.team_id).not.toBe(first.body.team.team_id);
    const indexes = await IdempotencyRecordModel.collection.indexes();
    expect(indexes).toContainEqual(
      expect.objectContaining({ key: { expiresAt: 1 }, expireAfterSeconds: 0 }),
    );
  });

  it('refuses a malformed key, and a key on issuing a token (REST and GraphQL)', async () => {
    const long = await gw.request('POST', '/teams', {
      body: { name: 'Bad key' },
      headers: { 'idempotency-key': 'k'.repeat(256) },
    });
    expect(long.status).toBe(400);
    expect(long.body).toEqual({
      message: 'Invalid Idempotency-Key header: expected 1 to 255 characters, got 256',
      success: false,
      statusCode: 400,
      errors: [{ field: 'Idempotency-Key', message: 'expected 1 to 255 characters, got 256' }],
    });
    const spaced = await gw.request('POST', '/teams', {
      body: { name: 'Bad key' },
      headers: { 'idempotency-key': 'a b' },
    });
    expect(spaced.status).toBe(400);
    expect(await TeamModel.countDocuments({ name: 'Bad key' })).toBe(0);

    const member = await gw.request('POST', '/teams/members', {
      body: {
        lastname: 'Token',
        firstname: 'Holder',
        email: 'token.holder@example.com',
        role: 'member',
        memberOf: { team_id: 'callers' },
      },
    });
    const memberId = member.body.member.member_id;
    const rest = await gw.request('POST', '/auth/tokens', {
      body: { member_id: memberId },
      headers: key(),
    });
    expect(rest.status).toBe(400);
    expect(rest.body.message).toBe(
      'POST /auth/tokens does not take an Idempotency-Key: its answer holds the token, which the gateway never keeps; issuing again is harmless (a token issued and lost can be revoked by its token_id)',
    );
    const graphql = await gw.request('POST', '/graphql', {
      body: { query: `mutation { issueToken(memberId: "${memberId}") { token } }` },
      headers: key(),
    });
    expect(graphql.status).toBe(400);
    expect(graphql.body.errors[0]).toMatchObject({
      message: expect.stringMatching(/^mutation issueToken does not take an Idempotency-Key: /),
      extensions: { code: 'BAD_USER_INPUT' },
    });
    expect(graphql.body.data).toBeUndefined();
  });

  it('replays a GraphQL mutation sent with the same key; 422 with other variables', async () => {
    const headers = key();
    const query = 'mutation ($input: CreateTeamInput!) { createTeam(input: $input) { id name } }';
    const send = (name: string) =>
      gw.request('POST', '/graphql', {
        body: { query, variables: { input: { name } } },
        headers,
      });
    const first = await send('GraphQL keyed');
    expect(first.status).toBe(200);
    expect(first.body.data.createTeam.name).toBe('GraphQL keyed');
    const again = await send('GraphQL keyed');
    expect(again).toMatchObject({ status: 200, body: first.body });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await TeamModel.countDocuments({ name: 'GraphQL keyed' })).toBe(1);
    const other = await send('GraphQL other');
    expect(other.status).toBe(422);
    expect(other.body.errors[0]).toMatchObject({
      message: expect.stringContaining('first used'),
      extensions: { code: 'UNPROCESSABLE_CONTENT' },
    });
    // A query takes no key: it is answered as always.
    const read = await gw.request('POST', '/graphql', {
      body: { query: '{ teams { id } }' },
      headers,
    });
    expect(read.status).toBe(200);
    expect(read.headers['idempotent-replayed']).toBeUndefined();
  });

  it('says a write the database failed under may or may not have been done, and gives its key back', async () => {
    const headers = key();
    failedWrites = 0;
    const first = await gw.request('POST', '/test/database-fails', { body: {}, headers });
    expect(first.status).toBe(503);
    expect(first.body.message).toBe(
      'The database stopped answering during the write: it may or may not have been carried out; retry with the same Idempotency-Key to learn it (409 while it is still running, then its answer)',
    );
    // No answer was recorded: the retry runs the write again.
    const retry = await gw.request('POST', '/test/database-fails', { body: {}, headers });
    expect(retry.status).toBe(503);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(failedWrites).toBe(2);
    const unkeyed = await gw.request('POST', '/test/database-fails', { body: {} });
    expect(unkeyed.body.message).toBe(
      'The database stopped answering during the write: it may or may not have been carried out; check whether it took effect before sending it again (sent with an Idempotency-Key header, a retry with the same key would tell)',
    );
  });
});
