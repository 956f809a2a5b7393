/**
 * A sync's events and progress: the crmSync(id) subscription follows a running sync over a real
 * WebSocket until it ends (admins only), and webhooks receive sync.succeeded, sync.failed and the
 * snapshot the sync committed. Both database modes.
 */
import { startGateway, type TestGateway } from '../helpers/gateway';
import { startHubSpotServer, type HubSpotTestServer } from '../../src/fake-crm/hubspot-server';
import { startReceiver, type Receiver } from '../events/support/receiver';
import { subscribe } from '../events/support/subscriber';
import { syncDataset, syncDeals, TOKEN } from './sync-dataset';

const FOLLOW = `subscription($id: ID!) {
  crmSync(id: $id) { id status progress { dealsRead } snapshotId error }
}`;

let hubspot: HubSpotTestServer;
let gateway: TestGateway;
let receiver: Receiver;

beforeAll(async () => {
  hubspot = await startHubSpotServer({
    token: TOKEN,
    dataset: syncDataset(syncDeals(40, Date.now())),
  });
  receiver = await startReceiver();
  gateway = await startGateway({
    env: {
      HUBSPOT_TOKEN: TOKEN,
      HUBSPOT_BASE_URL: hubspot.url,
      EVENTS_POLL_MS: '50',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      RATE_LIMIT: '0',
    },
    hubspotClient: { baseDelayMs: 20, maxDelayMs: 100, searchIntervalMs: 0 },
  });
  await gateway.request('POST', '/settings/currencies', { body: { currency: 'EUR' } });
  await gateway.request('POST', '/settings/periods', { body: { period: 'quarterly' } });
  const { body } = await gateway.request('POST', '/webhooks', {
    body: { url: receiver.url, events: ['sync.succeeded', 'sync.failed', 'snapshot.committed'] },
  });
  receiver.secrets.push(body.webhook.secret);
});
afterAll(async () => {
  await gateway?.stop();
  await hubspot?.close();
  await receiver?.close();
});

it('follows a running sync until it ends, and delivers sync.succeeded with its snapshot', async () => {
  // Each page of deals takes a while, so the sync is still running when the subscriber joins.
  hubspot.fail({ delayMs: 400 }, { times: 6, match: (r) => r.path === '/crm/v3/objects/deals' });
  const started = await gateway.request('POST', '/crm/syncs');
  expect(started.status).toBe(202);
  const syncId: string = started.body.sync.sync_id;
  const follower = await subscribe(gateway.url, gateway.adminToken, FOLLOW, { id: syncId });
  const until = Date.now() + 20_000;
  while (!follower.completed && Date.now() < until)
    await new Promise((resolve) => setTimeout(resolve, 20));
  expect(follower.completed).toBe(true);
  const { body: ended } = await gateway.request('GET', `/crm/syncs/${syncId}`);
  expect(ended.sync).toMatchObject({ status: 'succeeded', snapshot_id: expect.any(String) });
  const states = follower.items.map((item) => item.crmSync);
  expect(states[0]).toMatchObject({ id: syncId, status: 'RUNNING' });
  expect(states[states.length - 1]).toEqual({
    id: syncId,
    status: 'SUCCEEDED',
    progress: { dealsRead: 40 },
    snapshotId: ended.sync.snapshot_id,
    error: null,
  });

  await receiver.waitFor((got) => got.length >= 2);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const byType = Object.fromEntries(receiver.received.map((r) => [r.body.type, r.body.data]));
  expect(receiver.received).toHaveLength(2);
  expect(receiver.received.every((r) => r.verified)).toBe(true);
  expect(byType['sync.succeeded']).toMatchObject({
    sync_id: syncId,
    provider: 'hubspot',
    mode: 'full',
    snapshot_id: ended.sync.snapshot_id,
    changes: { added: 40, changed: 0, unchanged: 0, removed: 0 },
  });
  expect(byType['snapshot.committed']).toMatchObject({ snapshot_id: ended.sync.snapshot_id });
});

it('delivers sync.failed when HubSpot refuses the token', async () => {
  receiver.received.length = 0;
  hubspot.fail({ status: 401 }, { times: 5 });
  const { status, body } = await gateway.request('POST', '/crm/syncs');
  expect(status).toBe(202);
  await receiver.waitFor((got) => got.length >= 1);
  expect(receiver.received[0].body).toMatchObject({
    type: 'sync.failed',
    data: { error: expect.any(String) },
  });
  expect(receiver.received[0].body.data.sync_id).toBe(body.sync.sync_id);
});

it('lets only an admin follow a sync, and answers NOT_FOUND for an unknown one', async () => {
  const { body } = await gateway.request('GET', '/teams/members?limit=1');
  const token = await gateway.tokenFor(body.members[0].member_id);
  const member = await subscribe(gateway.url, token, FOLLOW, { id: 'nope' });
  await member.waitFor(() => member.errors.length > 0);
  expect(JSON.stringify(member.errors)).toMatch(/FORBIDDEN/);
  await member.stop();
  const unknown = await subscribe(gateway.url, gateway.adminToken, FOLLOW, { id: 'nope' });
  await unknown.waitFor(() => unknown.errors.length > 0);
  expect(JSON.stringify(unknown.errors)).toMatch(/NOT_FOUND/);
  await unknown.stop();
});
