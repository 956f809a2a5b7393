import { Role } from '../../src/auth/role';
import { CrmSyncStateModel } from '../../src/models/crm-sync-state.model';
import { MemberModel } from '../../src/models/member.model';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { startGateway, type TestGateway } from '../helpers/gateway';
import {
  startHubSpotServer,
  type HubSpotTestServer,
  type RecordedRequest,
} from '../../src/fake-crm/hubspot-server';
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

describe('HubSpot sync over HTTP', () => {
  it('has no sync before the first, and no schedule', async () => {
    const latest = await gateway.request('GET', '/crm/syncs/latest');
    expect(latest.status).toBe(200);
    expect(latest.body).toEqual({
      message: 'No HubSpot sync has run yet',
      success: true,
      statusCode: 200,
      configured: true,
      sync: null,
      high_water_mark: null,
      next_run_at: null,
    });
  });

  it('syncs in full first: every deal, the metrics equal to sums computed from HubSpot', async () => {
    const before = hubspot.requests.length;
    const response = await gateway.request('POST', '/crm/syncs');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      success: true,
      statusCode: 200,
      mode: 'full',
      counts: { pipelines: 2, stages: 6, deals: 40, owners: 3, teams: 2, members_created: 3 },
      fetched: { deals: 40, archived: 0 },
      skipped: [],
    });
    const requests = hubspot.requests.slice(before);
    expect(requests.filter(listsDeals).length).toBeGreaterThan(0);
    expect(requests.filter(searches)).toEqual([]);
    // The mark: the latest modification read.
    const latestModified = Math.max(
      ...hubspot.dataset.deals.map((d) => Date.parse(d.properties.hs_lastmodifieddate!)),
    );
    expect(response.body.high_water_mark).toBe(new Date(latestModified).toISOString());
    expect((await SnapshotModel.findById(response.body.snapshot_id).lean())?.status).toBe(
      'committed',
    );
    await expectMetricsMatch();

    const latest = await gateway.request('GET', '/crm/syncs/latest');
    expect(latest.body).toMatchObject({
      configured: true,
      high_water_mark: response.body.high_water_mark,
      next_run_at: null,
      sync: {
        sync_id: response.body.sync_id,
        trigger: 'api',
        mode: 'full',
        outcome: 'ok',
        snapshot_id: response.body.snapshot_id,
        counts: response.body.counts,
        fetched: { deals: 40, archived: 0 },
        error: null,
      },
    });
    expect(Date.parse(latest.body.sync.finished_at)).toBeGreaterThanOrEqual(
      Date.parse(latest.body.sync.started_at),
    );
  });

  it('syncs only the changes next (stage moves, amounts, closes, archived and new deals), through a 429 and a 502', async () => {
    const deals = hubspot.dataset.deals;
    const modified = new Date(NOW).toISOString();
    setStage(deals[0]!, 'contractsent', NOW, modified); // open → further open
    setStage(deals[1]!, 'closedwon', NOW, modified); // open → won
    setStage(deals[4]!, 'closedlost', NOW, modified); // open → lost
    deals[5]!.properties.amount = '99999';
    deals[5]!.properties.hs_lastmodifieddate = modified;
    setStage(deals[3]!, '7654323', NOW, modified); // renewal closed
    for (const gone of [deals[8]!, deals[9]!])
      Object.assign(gone, { archived: true, archivedAt: modified });
    const added = syncDeals(41, NOW, NOW - 400 * 60_000)[40]!;
    deals.push(added);
    const changed = 5 + 1; // the five above and the new deal

    hubspot.fail({ status: 429, retryAfter: '1' }, { match: searches });
    hubspot.fail({ status: 502 }, { match: (r) => r.path === '/crm/v3/owners' });
    const before = hubspot.requests.length;
    const response = await gateway.request('POST', '/crm/syncs');
    expect(response.status).toBe(200);
    const requests = hubspot.requests.slice(before);
    expect(response.body).toMatchObject({
      mode: 'incremental',
      counts: { deals: 39 },
      fetched: { archived: 2 },
    });
    // The deals changed, and the one at the previous mark (the overlap reads it again).
    expect(response.body.fetched.deals).toBe(changed + 1);
    expect(requests.filter(listsDeals)).toEqual([]);
    expect(requests.filter(searches).length).toBeGreaterThanOrEqual(2); // the 429 and its retry
    expect(requests.filter((r) => r.path === '/crm/v3/owners').length).toBe(2); // the 502 and its retry
    expect(response.body.high_water_mark).toBe(modified);
    await expectMetricsMatch();
  });

  it('fails a sync that would remove more than half of the deals, naming why in the answer and the run; forced it commits', async () => {
    const deals = hubspot.dataset.deals.filter((d) => !d.archived);
    const modified = new Date(NOW + 60_000).toISOString();
    const gone = deals.slice(0, Math.floor(deals.length / 2) + 1);
    for (const deal of gone) Object.assign(deal, { archived: true, archivedAt: modified });
    const before = await SnapshotModel.countDocuments();
    const markBefore = (await gateway.request('GET', '/crm/syncs/latest')).body.high_water_mark;

    const refused = await gateway.request('POST', '/crm/syncs');
    const reason =
      `This incremental import removes ${gone.length} of the latest snapshot's ${deals.length} deals (more than half): ` +
      'the deals it archives, those it carries that are no longer usable, and those whose stage its pipelines no longer have all leave; ' +
      'send "force": true (CLI --force) to import it anyway';
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ message: reason, success: false, statusCode: 409 });
    expect(await SnapshotModel.countDocuments()).toBe(before);
    const latest = await gateway.request('GET', '/crm/syncs/latest');
    expect(latest.body).toMatchObject({
      high_water_mark: markBefore,
      sync: { mode: 'incremental', outcome: 'failed', error: reason },
    });

    const forced = await gateway.request('POST', '/crm/syncs', { body: { force: true } });
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({
      mode: 'incremental',
      counts: { deals: deals.length - gone.length },
    });
    await expectMetricsMatch();
  });

  it('answers 409 while another sync holds the lease, and 403 to a non-admin', async () => {
    const until = new Date(Date.now() + 60_000);
    await CrmSyncStateModel.updateOne(
      { _id: 'hubspot' },
      { $set: { lease: { owner: 'gateway@elsewhere', syncId: 'other', expiresAt: until } } },
    );
    try {
      const response = await gateway.request('POST', '/crm/syncs');
      expect(response.status).toBe(409);
      expect(response.body).toEqual({
        message: `A HubSpot sync is already running (gateway@elsewhere, lease until ${until.toISOString()}); try again when it has finished`,
        success: false,
        statusCode: 409,
      });
    } finally {
      await CrmSyncStateModel.updateOne({ _id: 'hubspot' }, { $set: { lease: null } });
    }
    const member = await MemberModel.findOne({ role: Role.MEMBER }).lean();
    const token = await gateway.tokenFor(String(member!._id));
    expect((await gateway.request('POST', '/crm/syncs', { token })).status).toBe(403);
    expect((await gateway.request('GET', '/crm/syncs/latest', { token })).status).toBe(403);
  });

  it('refuses a body that is not { force: boolean } with 400', async () => {
    const response = await gateway.request('POST', '/crm/syncs', { body: { force: 'yes' } });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      { field: 'force', message: 'must be true or false, got string "yes"' },
    ]);
  });
});
