import { Role } from '../../src/auth/role';
import { MemberModel } from '../../src/models/member.model';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { TeamModel } from '../../src/models/team.model';
import { startGateway, TestGateway } from '../helpers/gateway';
import { fixture, MESSY_SKIPPED, messyImport } from './fixtures';

let gateway: TestGateway;
let memberToken: string;
let managerToken: string;

beforeAll(async () => {
  gateway = await startGateway();
  await TeamModel.create({ _id: 'existing-team', name: 'Existing' });
  const base = { teamId: 'existing-team', lastname: 'Tester' };
  await MemberModel.create({
    _id: 'm-member',
    firstname: 'Mem',
    email: 'mem@example.com',
    emailLower: 'mem@example.com',
    role: Role.MEMBER,
    ...base,
  });
  await MemberModel.create({
    _id: 'm-manager',
    firstname: 'Man',
    email: 'man@example.com',
    emailLower: 'man@example.com',
    role: Role.MANAGER,
    ...base,
  });
  memberToken = await gateway.tokenFor('m-member');
  managerToken = await gateway.tokenFor('m-manager');
});
afterAll(async () => {
  await gateway?.stop();
});

const MUTATION = `mutation Import($input: CrmImportInput!) {
  importCrmData(input: $input) {
    snapshotId snapshotIds reused
    snapshot { id definitions { id pipelines { id } } }
    counts { pipelines stages deals owners teams membersCreated }
    skipped { id reason }
  }
}`;

describe('POST /crm/imports', () => {
  it('refuses members and managers with 403, and a missing token with 401, writing nothing', async () => {
    for (const token of [memberToken, managerToken]) {
      const response = await gateway.request('POST', '/crm/imports', {
        body: messyImport(),
        token,
      });
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ success: false, statusCode: 403 });
    }
    expect(
      (await gateway.request('POST', '/crm/imports', { body: messyImport(), token: null })).status,
    ).toBe(401);
    expect(await SnapshotModel.find().lean()).toEqual([]);
  });

  it('answers 400 naming the path for an invalid document, writing nothing', async () => {
    const response = await gateway.request('POST', '/crm/imports', {
      body: fixture('invalid/pipeline-without-id.json'),
    });
    expect(response.status).toBe(400);
    expect(response.body.success).toBe(false);
    expect(response.body.statusCode).toBe(400);
    expect(response.body.errors).toContainEqual({
      field: 'pipelines.results[0].id',
      message: 'pipelines.results[0].id must be a non-empty string, got nothing',
    });
    const missing = await gateway.request('POST', '/crm/imports', {
      body: { pipelines: {}, owners: {} },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((e: { field: string }) => e.field)).toContain('deals');
    const unknown = await gateway.request('POST', '/crm/imports', {
      body: { ...messyImport(), extra: 1 },
    });
    expect(unknown.status).toBe(400);
    expect(await SnapshotModel.find().lean()).toEqual([]);
    expect(await MemberModel.find().lean()).toHaveLength(2);
  });

  it('imports the messy HubSpot data for an admin and answers counts and skipped in the documented shape', async () => {
    const response = await gateway.request('POST', '/crm/imports', { body: messyImport() });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      success: true,
      statusCode: 200,
      counts: { pipelines: 2, stages: 10, deals: 8, owners: 4, teams: 3, members_created: 4 },
    });
    expect(typeof response.body.message).toBe('string');
    expect(response.body.skipped).toEqual(MESSY_SKIPPED.map(([id, reason]) => ({ id, reason })));
    const snapshotId = response.body.snapshot_id;
    expect((await SnapshotModel.findById(snapshotId).lean())?.status).toBe('committed');

    // The read side sees it: GET /pipelines lists the complete pipelines and the sub-pipelines.
    const pipelines = await gateway.request('GET', '/pipelines', { token: memberToken });
    expect(pipelines.status).toBe(200);
    expect(pipelines.body.snapshot_id).toBe(snapshotId);
    expect(
      pipelines.body.pipeline_definitions.map(
        (d: { pipeline_definition_id: string }) => d.pipeline_definition_id,
      ),
    ).toEqual(['default', 'renewals']);
    const stages = await gateway.request('GET', '/pipelines/stages', {
      query: { pipeline_definition_id: 'renewals' },
      token: memberToken,
    });
    expect(
      stages.body.stages.map((s: { id: string; order: string; metadata: unknown }) => [
        s.id,
        s.order,
        s.metadata,
      ]),
    ).toEqual([
      ['r-open', '0', { is_closed: 'false', probability: '0.5' }],
      ['r-nego', '1', { is_closed: 'false', probability: '0.8' }],
      ['r-won', '2', { is_closed: 'true', probability: '1' }],
      ['r-lost', '3', { is_closed: 'true', probability: '0' }],
    ]);

    // The same data again: the same snapshot, nothing new.
    const again = await gateway.request('POST', '/crm/imports', { body: messyImport() });
    expect(again.status).toBe(200);
    expect(again.body.snapshot_id).toBe(snapshotId);
    expect(again.body.message).toBe(
      'This data was already imported; its snapshot is answered and nothing was written',
    );
    expect(await SnapshotModel.find().lean()).toHaveLength(1);
  });
});

describe('mutation importCrmData', () => {
  it('imports the same documents as JSON values and answers counts, skipped and the snapshot', async () => {
    const input = { ...messyImport(), snapshotAt: '2026-01-31T23:59:59Z' };
    const { status, body } = await gateway.graphql(MUTATION, { input });
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    const result = body.data.importCrmData;
    expect(result.reused).toBe(false);
    expect(result.counts).toEqual({
      pipelines: 2,
      stages: 10,
      deals: 8,
      owners: 4,
      teams: 3,
      membersCreated: 0,
    });
    expect(result.skipped).toHaveLength(MESSY_SKIPPED.length);
    expect(result.snapshotIds).toEqual([result.snapshotId]);
    expect(result.snapshot.id).toBe(result.snapshotId);
    expect(result.snapshot.definitions.map((d: { id: string }) => d.id)).toEqual([
      'default',
      'renewals',
    ]);
    expect(result.snapshot.definitions[0].pipelines[0].id).toBe('default');
  });

  it('is FORBIDDEN for a member', async () => {
    const { body } = await gateway.graphql(MUTATION, { input: messyImport() }, memberToken);
    expect(body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('answers BAD_USER_INPUT with the path for an invalid document', async () => {
    const { body } = await gateway.graphql(MUTATION, {
      input: fixture('invalid/results-not-array.json'),
    });
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(body.errors[0].message).toContain('pipelines.results must be an array, got an object');
  });
});
