import { Role } from '../../src/auth/role';
import { CrmSyncStateModel, SYNC_STATE_ID } from '../../src/models/crm-sync-state.model';
import { MemberModel } from '../../src/models/member.model';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { LOOK_BACK_MS } from '../../src/sync/crm-sync';
import { startGateway, type TestGateway } from '../helpers/gateway';
import {
  startHubSpotServer,
  type HubSpotTestServer,
  type RecordedRequest,
} from '../../src/fake-crm/hubspot-server';
import { followSync, followSyncGraphql, syncToEnd } from './follow-sync';
import { expectedMetrics, setStage, syncDataset, syncDeals, TOKEN } from './sync-dataset';

const NOW = Date.now();
const FAST_RETRIES = { baseDelayMs: 20, maxDelayMs: 100, searchIntervalMs: 0 };

let hubspot: HubSpotTestServer;
let gateway: TestGateway;

beforeAll(async () => {
  hubspot = await startHubSpotServer({ token: TOKEN, dataset: syncDataset(syncDeals(40, NOW)) });
  gateway = await startGateway({
    env: { HUBSPOT_TOKEN: TOKEN, HUBSPOT_BASE_URL: hubspot.url },
    hubspotClient: FAST_RETRIES,
  });
  expect(
    (await gateway.request('POST', '/settings/currencies', { body: { currency: 'EUR' } })).status,
  ).toBe(200);
  expect(
    (await gateway.request('POST', '/settings/periods', { body: { period: 'quarterly' } })).status,
  ).toBe(200);
});
afterAll(async () => {
  await gateway?.stop();
  await hubspot?.close();
});

/** The metrics of a pipeline definition as the gateway answers them, by codename. */
async function gatewayMetrics(pipelineId: string): Promise<Record<string, number | null>> {
  const response = await gateway.request('GET', '/pipelines/metrics', {
    query: {
      pipeline_id: pipelineId,
      metrics: [
        'pipeline_value',
        'weighted_pipeline_value',
        'open_opportunities',
        'win_rate',
        'average_deal_size',
      ],
    },
  });
  expect(response.status).toBe(200);
  return Object.fromEntries(
    response.body.metrics.map(
      (m: {
        metric_definition: { api_codename: string };
        metric_value: { value: number | null };
      }) => [m.metric_definition.api_codename, m.metric_value.value],
    ),
  );
}

async function expectMetricsMatch(): Promise<void> {
  for (const pipelineId of ['default', '7654321']) {
    expect({ pipelineId, metrics: await gatewayMetrics(pipelineId) }).toEqual({
      pipelineId,
      metrics: expectedMetrics(hubspot.dataset, pipelineId),
    });
  }
}

const listsDeals = (r: RecordedRequest) =>
  r.method === 'GET' && r.path === '/crm/v3/objects/deals' && r.query.archived !== 'true';
const searches = (r: RecordedRequest) =>
  r.method === 'POST' && r.path === '/crm/v3/objects/deals/search';

/** The latest modification among the live deals the server holds. */
function latestModified(): number {
  return Math.max(
    ...hubspot.dataset.deals
      .filter((d) => d.archived !== true)
      .map((d) => Date.parse(d.properties.hs_lastmodifieddate!)),
  );
}

describe('HubSpot sync over HTTP: a job', () => {
  it('has no sync before the first', async () => {
    const latest = await gateway.request('GET', '/crm/syncs/latest');
    expect(latest.status).toBe(404);
    expect(latest.body).toEqual({
      message: 'No CRM sync has run yet: POST /crm/syncs starts one',
      success: false,
      statusCode: 404,
    });
    const list = await gateway.request('GET', '/crm/syncs');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ syncs: [], next_cursor: null });
  });

  it('answers 202 at once with the running sync and its Location; followed to its end it committed every deal, the metrics equal to sums computed from HubSpot', async () => {
    const before = hubspot.requests.length;
    const { started, ended } = await syncToEnd(gateway);
    expect(started.body).toMatchObject({
      success: true,
      statusCode: 202,
      sync: {
        provider: 'hubspot',
        mode: 'full',
        status: 'running',
        finished_at: null,
        snapshot_id: null,
        counts: null,
        changes: null,
        error: null,
      },
    });
    expect(started.body.message).toBe(
      `Full HubSpot sync ${started.body.sync.sync_id} started: follow it at GET /crm/syncs/${started.body.sync.sync_id}`,
    );
    expect(ended.status).toBe(200);
    const sync = ended.body.sync;
    expect(sync).toMatchObject({
      sync_id: started.body.sync.sync_id,
      provider: 'hubspot',
      mode: 'full',
      status: 'succeeded',
      progress: { deals_read: 40 },
      counts: { pipelines: 2, stages: 6, deals: 40, owners: 3, teams: 2, members_created: 3 },
      changes: { added: 40, changed: 0, unchanged: 0, removed: 0 },
      error: null,
    });
    expect(ended.body.message).toBe(
      `Full HubSpot sync ${sync.sync_id} succeeded: snapshot ${sync.snapshot_id} committed (40 added, 0 changed, 0 unchanged, 0 removed)`,
    );
    expect(Date.parse(sync.finished_at)).toBeGreaterThanOrEqual(Date.parse(sync.started_at));
    const requests = hubspot.requests.slice(before);
    expect(requests.filter(listsDeals).length).toBeGreaterThan(0);
    expect(requests.filter(searches)).toEqual([]);
    expect((await SnapshotModel.findById(sync.snapshot_id).lean())?.status).toBe('committed');
    // The cursor: the latest modification read.
    const state = await CrmSyncStateModel.findById(SYNC_STATE_ID).lean();
    expect(state?.highWaterMark?.getTime()).toBe(latestModified());
    await expectMetricsMatch();

    const latest = await gateway.request('GET', '/crm/syncs/latest');
    expect(latest.body.sync).toEqual(sync);
  });

  it('syncs only the changes next (stage moves, amounts, closes, archived and new deals), through a 429 and a 502, counting what really changed', async () => {
    const deals = hubspot.dataset.deals;
    const mark = latestModified();
    const modified = new Date(NOW).toISOString();
    setStage(deals[0]!, 'contractsent', NOW, modified); // open → further open
    setStage(deals[1]!, 'closedwon', NOW, modified); // open → won
    setStage(deals[4]!, 'closedlost', NOW, modified); // open → lost
    deals[5]!.properties.amount = '99999';
    deals[5]!.properties.hs_lastmodifieddate = modified;
    setStage(deals[3]!, '7654322', NOW, modified); // renewal reopened
    // Touched, but the same state: read again, counted unchanged.
    deals[7]!.properties.hs_lastmodifieddate = modified;
    for (const gone of [deals[8]!, deals[9]!])
      Object.assign(gone, { archived: true, archivedAt: modified });
    deals.push(syncDeals(41, NOW, NOW - 400 * 60_000)[40]!);
    // Read again without a change: those modified within the look-back before the cursor.
    const rereads =
      1 +
      deals.filter((d) => {
        const at = Date.parse(d.properties.hs_lastmodifieddate!);
        return d.archived !== true && at < NOW && at >= mark - LOOK_BACK_MS;
      }).length;
    expect(rereads).toBeGreaterThan(0);

    hubspot.fail({ status: 429, retryAfter: '1' }, { match: searches });
    hubspot.fail({ status: 502 }, { match: (r) => r.path === '/crm/v3/owners' });
    const before = hubspot.requests.length;
    const { started, ended } = await syncToEnd(gateway);
    expect(started.body.sync.mode).toBe('incremental');
    expect(ended.body.sync).toMatchObject({
      mode: 'incremental',
      status: 'succeeded',
      counts: { deals: 39 },
      changes: { added: 1, changed: 5, unchanged: rereads, removed: 2 },
      // The five changed, the new one, the one touched and those read again, the two archived.
      progress: { deals_read: 6 + rereads + 2 },
    });
    const requests = hubspot.requests.slice(before);
    expect(requests.filter(listsDeals)).toEqual([]);
    expect(requests.filter(searches).length).toBeGreaterThanOrEqual(2); // the 429 and its retry
    expect(requests.filter((r) => r.path === '/crm/v3/owners').length).toBe(2); // the 502 and its retry
    const state = await CrmSyncStateModel.findById(SYNC_STATE_ID).lean();
    expect(state?.highWaterMark?.toISOString()).toBe(modified);
    await expectMetricsMatch();
  });

  it('commits no snapshot when nothing changed, and says so', async () => {
    const snapshots = await SnapshotModel.countDocuments();
    const latestBefore = await SnapshotModel.findOne({ status: 'committed' })
      .sort({ snapshotAt: -1 })
      .lean();
    const { ended } = await syncToEnd(gateway);
    const sync = ended.body.sync;
    expect(sync).toMatchObject({
      mode: 'incremental',
      status: 'succeeded',
      snapshot_id: null,
      changes: { added: 0, changed: 0, removed: 0 },
    });
    // The deals modified at the cursor are read again, and are the same.
    expect(sync.changes.unchanged).toBe(7);
    expect(ended.body.message).toBe(
      `Incremental HubSpot sync ${sync.sync_id} succeeded: nothing changed (0 added, 0 changed, 7 unchanged, 0 removed), so no snapshot was committed`,
    );
    expect(await SnapshotModel.countDocuments()).toBe(snapshots);
    const latestAfter = await SnapshotModel.findOne({ status: 'committed' })
      .sort({ snapshotAt: -1 })
      .lean();
    expect(latestAfter?._id).toBe(latestBefore?._id);
    await expectMetricsMatch();
  });

  it('fails a sync that would remove more than half of the deals, naming why in the run; forced it commits', async () => {
    const deals = hubspot.dataset.deals.filter((d) => !d.archived);
    const modified = new Date(NOW + 60_000).toISOString();
    const gone = deals.slice(0, Math.floor(deals.length / 2) + 1);
    for (const deal of gone) Object.assign(deal, { archived: true, archivedAt: modified });
    const before = await SnapshotModel.countDocuments();
    const markBefore = (await CrmSyncStateModel.findById(SYNC_STATE_ID).lean())?.highWaterMark;

    const { ended: refused } = await syncToEnd(gateway);
    const reason =
      `This incremental import removes ${gone.length} of the latest snapshot's ${deals.length} deals (more than half): ` +
      'the deals it archives, those it carries that are no longer usable, and those whose stage its pipelines no longer have all leave; ' +
      'send "force": true (CLI --force) to import it anyway';
    expect(refused.body.sync).toMatchObject({
      mode: 'incremental',
      status: 'failed',
      snapshot_id: null,
      error: reason,
    });
    expect(refused.body.message).toBe(
      `Incremental HubSpot sync ${refused.body.sync.sync_id} failed, nothing was kept: ${reason}`,
    );
    expect(await SnapshotModel.countDocuments()).toBe(before);
    expect((await CrmSyncStateModel.findById(SYNC_STATE_ID).lean())?.highWaterMark).toEqual(
      markBefore,
    );

    const { ended: forced } = await syncToEnd(gateway, { force: true });
    expect(forced.body.sync).toMatchObject({
      mode: 'incremental',
      status: 'succeeded',
      counts: { deals: deals.length - gone.length },
      changes: { removed: gone.length },
    });
    await expectMetricsMatch();
  });

  it('reads every deal again when asked for a full sync', async () => {
    const live = hubspot.dataset.deals.filter((d) => !d.archived).length;
    const before = hubspot.requests.length;
    const { ended } = await syncToEnd(gateway, { mode: 'full' });
    expect(ended.body.sync).toMatchObject({
      mode: 'full',
      status: 'succeeded',
      snapshot_id: null,
      progress: { deals_read: live },
      changes: { added: 0, changed: 0, unchanged: live, removed: 0 },
    });
    const requests = hubspot.requests.slice(before);
    expect(requests.filter(listsDeals).length).toBeGreaterThan(0);
    expect(requests.filter(searches)).toEqual([]);
  });

  it('answers a retry with the same Idempotency-Key with the same run and Location, starting no second sync', async () => {
    const headers = { 'idempotency-key': 'sync-retry-0001' };
    const first = await gateway.request('POST', '/crm/syncs', { body: {}, headers });
    expect(first.status).toBe(202);
    const retry = await gateway.request('POST', '/crm/syncs', { body: {}, headers });
    expect(retry.status).toBe(202);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers.location).toBe(`/crm/syncs/${first.body.sync.sync_id}`);
    expect(retry.body).toEqual(first.body);
    const ended = await followSync(gateway, first.body.sync.sync_id);
    expect(ended.body.sync.status).toBe('succeeded');
  });

  it('lists the syncs newest first, a page at a time', async () => {
    const first = await gateway.request('GET', '/crm/syncs', { query: { limit: 2 } });
    expect(first.status).toBe(200);
    expect(first.body.syncs.map((s: { mode: string }) => s.mode)).toEqual(['incremental', 'full']);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const rest = await gateway.request('GET', '/crm/syncs', {
      query: { limit: 100, cursor: first.body.next_cursor },
    });
    expect(
      rest.body.syncs.map((s: { mode: string; status: string }) => `${s.mode} ${s.status}`),
    ).toEqual([
      'incremental succeeded',
      'incremental failed',
      'incremental succeeded',
      'incremental succeeded',
      'full succeeded',
    ]);
    expect(rest.body.next_cursor).toBeNull();
    const unknown = await gateway.request('GET', '/crm/syncs/4b1c0e52-5b8e-4a35-9d7e-1f0a2b3c4d5e');
    expect(unknown.status).toBe(404);
  });

  it('starts and follows a sync over GraphQL', async () => {
    const mutation = await gateway.graphql(
      'mutation { syncCrmData(mode: INCREMENTAL) { id provider mode status snapshotId } }',
    );
    expect(mutation.status).toBe(200);
    const run = mutation.body.data.syncCrmData;
    expect(run).toMatchObject({
      provider: 'HUBSPOT',
      mode: 'INCREMENTAL',
      status: 'RUNNING',
      snapshotId: null,
    });
    const ended = await followSyncGraphql(
      gateway,
      run.id,
      'mode progress { dealsRead } changes { added changed unchanged removed } error',
    );
    expect(ended).toMatchObject({
      status: 'SUCCEEDED',
      mode: 'INCREMENTAL',
      changes: { added: 0, changed: 0, removed: 0 },
      error: null,
    });
    const list = await gateway.graphql('{ crmSyncs(first: 1) { edges { node { id status } } } }');
    expect(list.body.data.crmSyncs.edges).toEqual([{ node: { id: run.id, status: 'SUCCEEDED' } }]);
  });

  it('answers 409 naming the sync that holds the lease, and 403 to a non-admin', async () => {
    const until = new Date(Date.now() + 60_000);
    await CrmSyncStateModel.updateOne(
      { _id: SYNC_STATE_ID },
      { $set: { lease: { owner: 'gateway@elsewhere', syncId: 'other', expiresAt: until } } },
    );
    try {
      const response = await gateway.request('POST', '/crm/syncs');
      expect(response.status).toBe(409);
      expect(response.body).toEqual({
        message: `A CRM sync is already running: sync other (gateway@elsewhere, lease until ${until.toISOString()}); follow it at GET /crm/syncs/other, and try again when it has finished`,
        success: false,
        statusCode: 409,
      });
      const graphql = await gateway.graphql('mutation { syncCrmData { id } }');
      expect(graphql.body.errors[0]).toMatchObject({ extensions: { code: 'CONFLICT' } });
    } finally {
      await CrmSyncStateModel.updateOne({ _id: SYNC_STATE_ID }, { $set: { lease: null } });
    }
    const member = await MemberModel.findOne({ role: Role.MEMBER }).lean();
    const token = await gateway.tokenFor(String(member!._id));
    expect((await gateway.request('POST', '/crm/syncs', { token })).status).toBe(403);
    expect((await gateway.request('GET', '/crm/syncs/latest', { token })).status).toBe(403);
    expect((await gateway.request('GET', '/crm/syncs', { token })).status).toBe(403);
  });

  it('refuses a body with a bad mode or force with 400, starting nothing', async () => {
    const runs = (await gateway.request('GET', '/crm/syncs', { query: { limit: 100 } })).body.syncs
      .length;
    const response = await gateway.request('POST', '/crm/syncs', {
      body: { mode: 'partial', force: 'yes' },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'mode', message: 'must be "full" or "incremental", got string "partial"' },
        { field: 'force', message: 'must be true or false, got string "yes"' },
      ]),
    );
    expect(
      (await gateway.request('GET', '/crm/syncs', { query: { limit: 100 } })).body.syncs.length,
    ).toBe(runs);
  });
});
