import { CrmOwnerLinkModel } from '../../src/models/crm-owner-link.model';
import { CrmSyncStateModel } from '../../src/models/crm-sync-state.model';
import { MemberModel } from '../../src/models/member.model';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { TeamModel } from '../../src/models/team.model';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { startHubSpotServer, type HubSpotTestServer } from '../../src/fake-crm/hubspot-server';
import { syncDataset, syncDeals, TOKEN } from './sync-dataset';

const FAST_RETRIES = { baseDelayMs: 5, maxDelayMs: 20, searchIntervalMs: 0, maxAttempts: 3 };

/** Everything a sync could write but its run record and lease. */
async function written(): Promise<Record<string, unknown>> {
  const state = await CrmSyncStateModel.findById('hubspot').lean();
  return {
    snapshots: await SnapshotModel.find().lean(),
    members: await MemberModel.find().lean(),
    teams: await TeamModel.find().lean(),
    ownerLinks: await CrmOwnerLinkModel.find().lean(),
    mark: { highWaterMark: state?.highWaterMark ?? null, snapshotId: state?.snapshotId ?? null },
  };
}

describe('a sync that cannot run or fails', () => {
  let hubspot: HubSpotTestServer;

  beforeAll(async () => {
    hubspot = await startHubSpotServer({
      token: TOKEN,
      dataset: syncDataset(syncDeals(12, Date.now())),
    });
  });
  afterAll(async () => {
    await hubspot?.close();
  });

  describe('without HUBSPOT_TOKEN', () => {
    let gateway: TestGateway;
    beforeAll(async () => {
      gateway = await startGateway();
    });
    afterAll(async () => {
      await gateway?.stop();
    });

    it('answers 409 saying to set HUBSPOT_TOKEN, on REST and GraphQL, and says so in the status', async () => {
      const response = await gateway.request('POST', '/crm/syncs');
      expect(response.status).toBe(409);
      expect(response.body).toEqual({
        message:
          'The HubSpot sync is not configured: set HUBSPOT_TOKEN to a HubSpot access token (docs/hubspot-sync.md)',
        success: false,
        statusCode: 409,
      });
      const graphql = await gateway.graphql('mutation { syncCrmData { syncId } }');
      expect(graphql.body.errors[0]).toMatchObject({ extensions: { code: 'CONFLICT' } });
      const latest = await gateway.request('GET', '/crm/syncs/latest');
      expect(latest.body).toMatchObject({
        configured: false,
        sync: null,
        next_run_at: null,
        message: 'No HubSpot sync has run yet; set HUBSPOT_TOKEN to sync',
      });
    });
  });

  describe('with a token HubSpot refuses', () => {
    let gateway: TestGateway;
    beforeAll(async () => {
      gateway = await startGateway({
        env: { HUBSPOT_TOKEN: 'pat-na1-wrong', HUBSPOT_BASE_URL: hubspot.url },
        hubspotClient: FAST_RETRIES,
      });
    });
    afterAll(async () => {
      await gateway?.stop();
    });

    it('fails with 502 naming HubSpot authentication, writing nothing, and the status says why', async () => {
      const before = await written();
      const calls = hubspot.requests.length;
      const response = await gateway.request('POST', '/crm/syncs');
      expect(response.status).toBe(502);
      expect(response.body.success).toBe(false);
      expect(response.body.statusCode).toBe(502);
      expect(response.body.message).toMatch(
        /^HubSpot authentication failed: HubSpot refused the token \(401: INVALID_AUTHENTICATION .*\) on GET \/crm\/v3\/pipelines\/deals; check HUBSPOT_TOKEN/,
      );
      expect(response.body.message).not.toContain('pat-na1-wrong');
      // Refused at once: not asked again.
      expect(hubspot.requests.length - calls).toBe(1);
      expect(await written()).toEqual(before);

      const latest = await gateway.request('GET', '/crm/syncs/latest');
      expect(latest.body.sync).toMatchObject({
        outcome: 'failed',
        trigger: 'api',
        mode: 'full',
        snapshot_id: null,
        counts: null,
        error: response.body.message,
      });
      expect(latest.body.high_water_mark).toBeNull();
      // The lease was given back: the next attempt is refused by HubSpot again, not by a running sync.
      expect((await gateway.request('POST', '/crm/syncs')).status).toBe(502);
    });
  });

  describe('with HubSpot failing', () => {
    let gateway: TestGateway;
    beforeAll(async () => {
      gateway = await startGateway({
        env: { HUBSPOT_TOKEN: TOKEN, HUBSPOT_BASE_URL: hubspot.url },
        hubspotClient: FAST_RETRIES,
      });
    });
    afterAll(async () => {
      await gateway?.stop();
    });

    it('fails with 502 once the attempts run out, writing nothing; the next sync commits', async () => {
      const before = await written();
      hubspot.fail({ status: 503 }, { times: 3, match: (r) => r.path === '/crm/v3/objects/deals' });
      const response = await gateway.request('POST', '/crm/syncs');
      expect(response.status).toBe(502);
      expect(response.body.message).toBe(
        'HubSpot did not answer GET /crm/v3/objects/deals after 3 attempts; last: 503',
      );
      expect(await written()).toEqual(before);

      const next = await gateway.request('POST', '/crm/syncs');
      expect(next.status).toBe(200);
      expect(next.body).toMatchObject({ mode: 'full', counts: { deals: 12 } });
    });

    it('runs through GraphQL too, and reads the status there', async () => {
      const mutation = await gateway.graphql(
        'mutation { syncCrmData(force: false) { syncId mode fetched { deals archived } import { snapshotId counts { deals } } } }',
      );
      expect(mutation.status).toBe(200);
      const result = mutation.body.data.syncCrmData;
      expect(result.import.counts.deals).toBe(12);
      const status = await gateway.graphql(
        '{ crmSyncStatus { configured nextRunAt highWaterMark latest { syncId outcome trigger snapshotId error } } }',
      );
      expect(status.body.data.crmSyncStatus).toMatchObject({
        configured: true,
        nextRunAt: null,
        latest: {
          syncId: result.syncId,
          outcome: 'OK',
          trigger: 'API',
          snapshotId: result.import.snapshotId,
          error: null,
        },
      });
    });
  });
});
