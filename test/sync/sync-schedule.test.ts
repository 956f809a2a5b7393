import type { Principal } from '../../src/auth/principal';
import { Role } from '../../src/auth/role';
import { ImportQueue } from '../../src/import/import-queue';
import { CrmSyncStateModel } from '../../src/models/crm-sync-state.model';
import { CrmSync } from '../../src/sync/crm-sync';
import { SyncScheduler } from '../../src/sync/sync-scheduler';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { startHubSpotServer, type HubSpotTestServer } from '../../src/fake-crm/hubspot-server';
import { syncDataset, syncDeals, TOKEN } from './sync-dataset';

const ADMIN: Principal = { subject: 'test', role: Role.ADMIN, memberId: null, teamId: null };
const FAST_RETRIES = { baseDelayMs: 5, maxDelayMs: 20, searchIntervalMs: 0 };

/** GET /crm/syncs/latest until `done` says yes (a scheduled sync runs in the background). */
async function latestWhen(gateway: TestGateway, done: (body: any) => boolean): Promise<any> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { body } = await gateway.request('GET', '/crm/syncs/latest');
    if (done(body)) return body;
    if (Date.now() > deadline)
      throw new Error(`no such status in time; last: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('SYNC_INTERVAL_MINUTES', () => {
  let hubspot: HubSpotTestServer;
  let gateway: TestGateway | undefined;

  beforeAll(async () => {
    hubspot = await startHubSpotServer({
      token: TOKEN,
      dataset: syncDataset(syncDeals(8, Date.now())),
    });
  });
  afterEach(async () => {
    await gateway?.stop();
    gateway = undefined;
  });
  afterAll(async () => {
    await hubspot?.close();
  });

  it('syncs when the gateway starts, then says when the next run is due', async () => {
    const started = Date.now();
    gateway = await startGateway({
      env: { HUBSPOT_TOKEN: TOKEN, HUBSPOT_BASE_URL: hubspot.url, SYNC_INTERVAL_MINUTES: '30' },
      hubspotClient: FAST_RETRIES,
    });
    const body = await latestWhen(gateway, (b) => b.sync?.outcome === 'ok');
    expect(body.sync).toMatchObject({ trigger: 'schedule', mode: 'full', counts: { deals: 8 } });
    const next = Date.parse(body.next_run_at);
    expect(next).toBeGreaterThanOrEqual(started + 30 * 60_000);
    expect(next).toBeLessThanOrEqual(Date.now() + 30 * 60_000);
  });

  it('skips a scheduled run while another instance holds the lease', async () => {
    gateway = await startGateway({
      env: { HUBSPOT_TOKEN: TOKEN, HUBSPOT_BASE_URL: hubspot.url },
      hubspotClient: FAST_RETRIES,
    });
    const until = new Date(Date.now() + 60_000);
    await CrmSyncStateModel.updateOne(
      { _id: 'hubspot' },
      { $set: { lease: { owner: 'gateway@elsewhere', syncId: 'other', expiresAt: until } } },
      { upsert: true },
    );
    // A second instance on the same database, with a schedule of its own.
    const second = new CrmSync({
      config: { ...gateway.config, syncLeaseSeconds: 60 },
      queue: new ImportQueue(),
      role: 'gateway',
    });
    const scheduler = new SyncScheduler(second, 60_000, ADMIN, {
      info: () => undefined,
      warn: () => undefined,
    });
    const calls = hubspot.requests.length;
    scheduler.start();
    try {
      const body = await latestWhen(gateway, (b) => b.sync !== null);
      expect(body.sync).toMatchObject({
        trigger: 'schedule',
        outcome: 'skipped',
        mode: null,
        error: `A HubSpot sync is already running (gateway@elsewhere, lease until ${until.toISOString()}); try again when it has finished`,
      });
      expect(hubspot.requests.length).toBe(calls);
      // The next run is due an interval after the scheduler started the skipped one, which it
      // did just before the run recorded its own start.
      const due = Date.parse(body.sync.started_at) + 60_000;
      expect(scheduler.nextRunAt!.getTime()).toBeLessThanOrEqual(due);
      expect(scheduler.nextRunAt!.getTime()).toBeGreaterThan(due - 1_000);
    } finally {
      await scheduler.stop();
    }
    expect(scheduler.nextRunAt).toBeNull();
  });
});
