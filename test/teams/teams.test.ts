import { startGateway, type TestGateway } from '../helpers/gateway';
import { seedMember, seedTeam } from '../members/support/seed';

let gw: TestGateway;
let managerToken: string;
let memberToken: string;

beforeAll(async () => {
  gw = await startGateway();
  await seedTeam(gw, 'red', 'Red team');
  managerToken = await gw.tokenFor((await seedMember(gw, 'red', 'manager')).member_id);
  memberToken = await gw.tokenFor((await seedMember(gw, 'red', 'member')).member_id);
});

afterAll(async () => {
  await gw?.stop();
});

async function teamIds(): Promise<string[]> {
  const res = await gw.request('GET', '/teams');
  return res.body.teams.map((t: { team_id: string }) => t.team_id);
}

describe('POST /teams', () => {
  it('creates a team with the given id and answers the envelope', async () => {
    const res = await gw.request('POST', '/teams', {
      body: { team_id: 'blue', name: 'Blue team' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'Team created',
      success: true,
      statusCode: 200,
      team: { team_id: 'blue', name: 'Blue team' },
    });
  });

  it('generates a UUID when team_id is absent', async () => {
    const res = await gw.request('POST', '/teams', { body: { name: 'Nameless' } });
    expect(res.status).toBe(200);
    expect(res.body.team.team_id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(res.body.team.name).toBe('Nameless');
  });

  it('answers 409 for a taken team_id and keeps the existing team', async () => {
    const res = await gw.request('POST', '/teams', { body: { team_id: 'red', name: 'Impostor' } });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      success: false,
      statusCode: 409,
      message: 'Team red already exists',
    });
    expect((await gw.request('GET', '/teams/red')).body.team).toEqual({
      team_id: 'red',
      name: 'Red team',
    });
  });

  it('answers 400 naming the field for a missing name, an unknown field or a bad id', async () => {
    const before = await teamIds();
    const missing = await gw.request('POST', '/teams', { body: { team_id: 'green' } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((e: { field: string }) => e.field)).toEqual(['name']);
    const unknown = await gw.request('POST', '/teams', { body: { name: 'x', colour: 'green' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors.map((e: { field: string }) => e.field)).toEqual(['colour']);
    const badId = await gw.request('POST', '/teams', { body: { team_id: 'has space', name: 'x' } });
    expect(badId.status).toBe(400);
    expect(badId.body.errors.map((e: { field: string }) => e.field)).toEqual(['team_id']);
    expect(await teamIds()).toEqual(before);
  });

  it('is admin only: 403 for a manager and a member, nothing created', async () => {
    for (const token of [managerToken, memberToken]) {
      const res = await gw.request('POST', '/teams', {
        token,
        body: { team_id: 'sneaky', name: 'Sneaky' },
      });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ success: false, statusCode: 403 });
    }
    expect(await teamIds()).not.toContain('sneaky');
  });

  it('answers 401 without a token', async () => {
    const res = await gw.request('POST', '/teams', { token: null, body: { name: 'x' } });
    expect(res.status).toBe(401);
  });
});

describe('GET /teams and GET /teams/{team_id}', () => {
  it('lists every team in id order, for every role', async () => {
    for (const token of [undefined, managerToken, memberToken]) {
      const res = await gw.request('GET', '/teams', { token });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, statusCode: 200 });
      const ids = res.body.teams.map((t: { team_id: string }) => t.team_id);
      expect(ids).toEqual([...ids].sort());
      expect(res.body.teams).toEqual(
        expect.arrayContaining([{ team_id: 'red', name: 'Red team' }]),
      );
    }
  });

  it('reads one team, 404 when unknown', async () => {
    const res = await gw.request('GET', '/teams/red', { token: memberToken });
    expect(res.body).toEqual({
      message: 'Team found',
      success: true,
      statusCode: 200,
      team: { team_id: 'red', name: 'Red team' },
    });
    const missing = await gw.request('GET', '/teams/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({
      success: false,
      statusCode: 404,
      message: 'Team nope not found',
    });
  });
});

describe('GraphQL teams', () => {
  it('creates and reads teams', async () => {
    const created = await gw.graphql(
      'mutation { createTeam(input: { id: "gql", name: "GraphQL team" }) { id name } }',
    );
    expect(created.body).toEqual({ data: { createTeam: { id: 'gql', name: 'GraphQL team' } } });
    const read = await gw.graphql(
      '{ team(id: "gql") { id name } teams { id } }',
      undefined,
      memberToken,
    );
    expect(read.body.data.team).toEqual({ id: 'gql', name: 'GraphQL team' });
    expect(read.body.data.teams).toEqual(expect.arrayContaining([{ id: 'gql' }, { id: 'red' }]));
  });

  it('answers CONFLICT for a taken id, FORBIDDEN for a manager, NOT_FOUND for an unknown team', async () => {
    const taken = await gw.graphql(
      'mutation { createTeam(input: { id: "red", name: "x" }) { id } }',
    );
    expect(taken.body.errors[0].extensions.code).toBe('CONFLICT');
    const forbidden = await gw.graphql(
      'mutation { createTeam(input: { name: "x" }) { id } }',
      undefined,
      managerToken,
    );
    expect(forbidden.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const missing = await gw.graphql('{ team(id: "nope") { id } }');
    expect(missing.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await gw.request('GET', '/teams/red')).body.team.name).toBe('Red team');
  });
});
