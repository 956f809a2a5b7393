import type { Principal } from '../../src/auth/principal';
import { Role } from '../../src/auth/role';
import { ImportQueue } from '../../src/import/import-queue';
import { CrmSyncStateModel, SYNC_STATE_ID } from '../../src/models/crm-sync-state.model';
import { CrmSyncModel } from '../../src/models/crm-sync.model';
import { CrmSync, type SyncRunReport } from '../../src/sync/crm-sync';
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
      throw new Error(`no such sync in time; last: ${JSON.stringify(body)}`);
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

  it('syncs when the gateway starts, recorded as the schedule’s', async () => {
    gateway = await startGateway({
      env: { HUBSPOT_TOKEN: TOKEN, HUBSPOT_BASE_URL: hubspot.url, SYNC_INTERVAL_MINUTES: '30' },
      hubspotClient: FAST_RETRIES,
    });
    const body = await latestWhen(gateway, (b) => b.sync?.status === 'succeeded');
    expect(body.sync).toMatchObject({ mode: 'full', counts: { deals: 8 } });
    const run = await CrmSyncModel.findById(body.sync.sync_id).lean();
    expect(run?.trigger).toBe('schedule');
  });

  it('skips a scheduled run while another instance holds the lease, saying so, and keeps the schedule', async () => {
    gateway = await startGateway({
      env: { HUBSPOT_TOKEN: TOKEN, HUBSPOT_BASE_URL: hubspot.url },
      hubspotClient: FAST_RETRIES,
    });
    const until = new Date(Date.now() + 60_000);
    await CrmSyncStateModel.updateOne(
      { _id: SYNC_STATE_ID },
      { $set: { lease: { owner: 'gateway@elsewhere', syncId: 'other', expiresAt: until } } },
      { upsert: true },
    );
    // A second instance on the same database, with a schedule of its own.
    const reports: SyncRunReport[] = [];
    const second = new CrmSync({
      config: { ...gateway.config, syncLeaseSeconds: 60 },
      queue: new ImportQueue(),
      role: 'gateway',
      onRunEnded: (report) => reports.push(report),
    });
    const logged: string[] = [];
    const scheduler = new SyncScheduler(second, 60_000, ADMIN, {
      info: (message: unknown) => void logged.push(String(message)),
      warn: (message: unknown) => void logged.push(String(message)),
    });
    const calls = hubspot.requests.length;
    const runs = await CrmSyncModel.countDocuments();
    const started = Date.now();
    scheduler.start();
    try {
      const deadline = Date.now() + 10_000;
      while (logged.length === 0) {
        if (Date.now() > deadline) throw new Error('the scheduled run never ended');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(logged).toEqual([
        `scheduled HubSpot sync skipped: A CRM sync is already running: sync other (gateway@elsewhere, lease until ${until.toISOString()}); follow it at GET /crm/syncs/other, and try again when it has finished`,
      ]);
      expect(reports).toEqual([
        { trigger: 'schedule', mode: null, outcome: 'skipped', seconds: expect.any(Number) },
      ]);
      expect(hubspot.requests.length).toBe(calls);
      expect(await CrmSyncModel.countDocuments()).toBe(runs);
      // The next run is due an interval after the skipped one started.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(scheduler.nextRunAt!.getTime()).toBeGreaterThanOrEqual(started + 60_000);
      expect(scheduler.nextRunAt!.getTime()).toBeLessThanOrEqual(Date.now() + 60_000);
    } finally {
      await scheduler.stop();
      await CrmSyncStateModel.updateOne({ _id: SYNC_STATE_ID }, { $set: { lease: null } });
    }
    expect(scheduler.nextRunAt).toBeNull();
  });
});
