import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CrmOwnerLinkModel } from '../../src/models/crm-owner-link.model';
import { CrmSyncStateModel, SYNC_STATE_ID } from '../../src/models/crm-sync-state.model';
import { MemberModel } from '../../src/models/member.model';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { TeamModel } from '../../src/models/team.model';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { startHubSpotServer, type HubSpotTestServer } from '../../src/fake-crm/hubspot-server';
import { syncToEnd } from './follow-sync';
import { syncDataset, syncDeals, TOKEN } from './sync-dataset';

const FAST_RETRIES = { baseDelayMs: 5, maxDelayMs: 20, searchIntervalMs: 0, maxAttempts: 3 };

/** Everything a sync could write but its run record and lease. */
async function written(): Promise<Record<string, unknown>> {
  const state = await CrmSyncStateModel.findById(SYNC_STATE_ID).lean();
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

    it('answers 409 saying to set HUBSPOT_TOKEN, on REST and GraphQL, and 404 for the latest sync', async () => {
      const response = await gateway.request('POST', '/crm/syncs');
      expect(response.status).toBe(409);
      expect(response.body).toEqual({
        message:
          'The CRM sync is not configured: set HUBSPOT_TOKEN to a HubSpot access token (docs/crm-sync.md)',
        success: false,
        statusCode: 409,
      });
      const graphql = await gateway.graphql('mutation { syncCrmData { id } }');
      expect(graphql.body.errors[0]).toMatchObject({ extensions: { code: 'CONFLICT' } });
      const latest = await gateway.request('GET', '/crm/syncs/latest');
      expect(latest.status).toBe(404);
      expect(latest.body.message).toBe(
        'No CRM sync has run yet, and none can until the sync is configured (docs/crm-sync.md)',
      );
    });
  });

  describe('with CRM_PROVIDER=salesforce and no connected app', () => {
    let gateway: TestGateway;
    beforeAll(async () => {
      gateway = await startGateway({ env: { CRM_PROVIDER: 'salesforce', HUBSPOT_TOKEN: TOKEN } });
    });
    afterAll(async () => {
      await gateway?.stop();
    });

    it('answers 409 naming the Salesforce settings', async () => {
      const response = await gateway.request('POST', '/crm/syncs');
      expect(response.status).toBe(409);
      expect(response.body.message).toBe(
        "The CRM sync is not configured: set SALESFORCE_CLIENT_ID and SALESFORCE_CLIENT_SECRET to the consumer key and secret of a connected app with the client-credentials flow, and SALESFORCE_LOGIN_URL to the org's My Domain URL (docs/crm-sync.md)",
      );
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

    it('fails the run naming HubSpot authentication, writing nothing, and gives the lease back', async () => {
      const before = await written();
      const calls = hubspot.requests.length;
      const { ended } = await syncToEnd(gateway);
      const sync = ended.body.sync;
      expect(sync).toMatchObject({
        status: 'failed',
        mode: 'full',
        snapshot_id: null,
        counts: null,
        changes: null,
      });
      expect(sync.error).toMatch(
        /^HubSpot authentication failed: HubSpot refused the token \(401: INVALID_AUTHENTICATION .*\) on GET \/crm\/v3\/pipelines\/deals; check HUBSPOT_TOKEN/,
      );
      expect(JSON.stringify(ended.body)).not.toContain('pat-na1-wrong');
      // Refused at once: not asked again.
      expect(hubspot.requests.length - calls).toBe(1);
      expect(await written()).toEqual(before);
      // The lease was given back: the next one starts (and fails the same way).
      const { ended: again } = await syncToEnd(gateway);
      expect(again.body.sync.status).toBe('failed');
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

    it('fails the run once the attempts run out, writing nothing; the next sync commits', async () => {
      const before = await written();
      hubspot.fail({ status: 503 }, { times: 3, match: (r) => r.path === '/crm/v3/objects/deals' });
      const { ended } = await syncToEnd(gateway);
      expect(ended.body.sync).toMatchObject({
        status: 'failed',
        error: 'HubSpot did not answer GET /crm/v3/objects/deals after 3 attempts; last: 503',
      });
      expect(await written()).toEqual(before);

      const { ended: next } = await syncToEnd(gateway);
      expect(next.body.sync).toMatchObject({
        status: 'succeeded',
        mode: 'full',
        counts: { deals: 12 },
      });
    });

    it('answers an incremental sync asked for before any committed one with 409', async () => {
      await CrmSyncStateModel.deleteOne({ _id: SYNC_STATE_ID });
      const response = await gateway.request('POST', '/crm/syncs', {
        body: { mode: 'incremental' },
      });
      expect(response.status).toBe(409);
      expect(response.body.message).toBe(
        'An incremental sync reads what changed since the last committed HubSpot sync, and there is none yet: run a full one first (mode "full", or no mode)',
      );
    });
  });

  describe('with HUBSPOT_BASE_URL redirecting to another origin', () => {
    let gateway: TestGateway;
    let redirecting: http.Server;
    let hits = 0;
    beforeAll(async () => {
      redirecting = http.createServer((req, res) => {
        hits += 1;
        res.writeHead(301, { location: `${hubspot.url}${req.url}` }).end();
      });
      await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`;
      gateway = await startGateway({
        env: { HUBSPOT_TOKEN: TOKEN, HUBSPOT_BASE_URL: url },
        hubspotClient: FAST_RETRIES,
      });
    });
    afterAll(async () => {
      await gateway?.stop();
      redirecting.closeAllConnections();
      await new Promise((resolve) => redirecting.close(resolve));
    });

    it('does not follow it: the run fails saying so, HubSpot is never asked, nothing is written', async () => {
      const before = await written();
      const calls = hubspot.requests.length;
      const { ended } = await syncToEnd(gateway);
      expect(ended.body.sync.status).toBe('failed');
      expect(ended.body.sync.error).toContain(`to ${hubspot.url}, which is not followed`);
      expect(hits).toBe(1);
      expect(hubspot.requests.length).toBe(calls);
      expect(await written()).toEqual(before);
    });
  });
});
