/**
 * Webhooks over real HTTP: every change delivers its event once, signed per Standard Webhooks
 * (verified with the `standardwebhooks` package), retried on the configured schedule, the endpoint
 * disabled on 410; filters, the delivery log, manual retry and replay. Both database modes.
 */
import { EventModel } from '../../src/models/event.model';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { parseExposition } from '../telemetry/exposition';
import { MAIN_FIXTURE, toImportBody, type CrmFixture } from '../pipelines/fixtures/crm-fixture';
import { startReceiver, type Receiver } from './support/receiver';

const SCHEDULE = [300, 600, 900];

let gateway: TestGateway;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  gateway = await startGateway({
    env: {
      EVENTS_POLL_MS: '50',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_SCHEDULE: SCHEDULE.map((ms) => `${ms}ms`).join(','),
      WEBHOOK_TIMEOUT_MS: '2000',
      RATE_LIMIT: '0',
    },
  });
});
afterAll(async () => {
  await gateway?.stop();
  await receiver?.close();
});
beforeEach(() => {
  receiver.received.length = 0;
  receiver.answer = () => 200;
});

async function ok(method: string, path: string, body?: unknown, token?: string): Promise<any> {
  const response = await gateway.request(method, path, { body, token });
  if (response.status !== 200)
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

async function createWebhook(
  body: Record<string, unknown>,
): Promise<{ id: string; secret: string }> {
  const { webhook } = await ok('POST', '/webhooks', { url: receiver.url, ...body });
  expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  receiver.secrets.push(webhook.secret);
  return { id: webhook.webhook_id, secret: webhook.secret };
}

/** The fixture with one more open deal in the sales pipeline (Ada's). */
function withOneMoreDeal(fixture: CrmFixture): CrmFixture {
  return {
    ...fixture,
    deals: [
      ...fixture.deals,
      {
        id: '1099',
        pipeline: 'sales',
        stage: 'proposal',
        amount: '1234',
        owner: '101',
        createdate: '2026-05-19T00:00:00Z',
        closedate: '2026-06-20T00:00:00Z',
      },
    ],
  };
}

describe('every change delivers its event once, signed', () => {
  let hook: { id: string; secret: string };
  afterAll(async () => {
    await ok('DELETE', `/webhooks/${hook.id}`);
  });

  it('delivers settings, member, target, snapshot and alert events, each once and verified', async () => {
    hook = await createWebhook({ events: ['*'] });
    await ok('POST', '/settings/currencies', { currency: 'eur' });
    await ok('POST', '/settings/periods', { period: 'quarterly' });
    await ok('POST', '/crm/imports', toImportBody(MAIN_FIXTURE, '2026-05-20T12:00:00Z'));
    const { members } = await ok('GET', '/teams/members?limit=100');
    const ada = members.find((m: any) => m.email === 'ada@example.com');
    const { member } = await ok('POST', '/teams/members', {
      lastname: 'Probe',
      firstname: 'Pat',
      email: 'pat.probe@example.com',
      role: 'member',
      memberOf: { team_id: ada.memberOf.team_id },
    });
    await ok('POST', `/teams/members/${member.member_id}`, { team_id: 'west' });
    await ok('PATCH', `/teams/members/${member.member_id}`, { role: 'manager', lastname: 'Probe' });
    await ok('POST', `/teams/members/${ada.member_id}/targets`, {
      year: 2026,
      targets: [1000, 2000, 3000, 4000],
    });
    await ok('DELETE', `/teams/members/${member.member_id}`);
    const open = await ok('GET', '/pipelines/metrics?pipeline_id=sales&metrics=open_opportunities');
    const before = open.metrics[0].metric_value.value as number;
    const { rule } = await ok('POST', '/alerts/rules', {
      pipeline_id: 'sales',
      metric: 'open_opportunities',
      condition: 'above',
      value: before,
    });
    await ok(
      'POST',
      '/crm/imports',
      toImportBody(withOneMoreDeal(MAIN_FIXTURE), '2026-05-21T12:00:00Z'),
    );

    const expected = [
      'settings.updated',
      'settings.updated',
      'snapshot.committed',
      'member.created',
      'member.updated',
      'member.updated',
      'target.updated',
      'member.deleted',
      'snapshot.committed',
      'deal.created',
      'alert.triggered',
    ];
    await receiver.waitFor((got) => got.length >= expected.length);
    // Nothing more arrives (a second delivery of any of them would show here).
    await new Promise((resolve) => setTimeout(resolve, 500));
    const got = receiver.received;
    expect(got.map((r) => r.body.type).sort()).toEqual([...expected].sort());
    expect(new Set(got.map((r) => r.id)).size).toBe(got.length);
    for (const delivery of got) {
      expect(delivery.verified).toBe(true);
      expect(delivery.id).toMatch(/^evt_[0-9a-f]{32}$/);
      expect(Math.abs(Number(delivery.timestamp) * 1000 - delivery.at)).toBeLessThan(5000);
    }
    const byType = (type: string) =>
      got.filter((r) => r.body.type === type).map((r) => r.body.data);
    expect(byType('settings.updated')).toEqual(
      expect.arrayContaining([
        { changed: ['currency'], currency: 'EUR' },
        {
          changed: ['period', 'values', 'targets_deleted'],
          period: 'quarterly',
          values: ['Q1', 'Q2', 'Q3', 'Q4'],
          targets_deleted: 0,
        },
      ]),
    );
    expect(byType('member.updated')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          member_id: member.member_id,
          changes: { team_id: { from: ada.memberOf.team_id, to: 'west' } },
        }),
        // Only what changed: the lastname was the same.
        expect.objectContaining({
          member_id: member.member_id,
          changes: { role: { from: 'member', to: 'manager' } },
          member: expect.objectContaining({ role: 'manager', memberOf: { team_id: 'west' } }),
        }),
      ]),
    );
    // The admin token owns the webhook: target amounts are delivered.
    expect(byType('target.updated')[0]).toMatchObject({
      member_id: ada.member_id,
      year: 2026,
      period: 'quarterly',
      currency: 'EUR',
      targets: [
        { period: 'Q1', amount: 1000 },
        { period: 'Q2', amount: 2000 },
        { period: 'Q3', amount: 3000 },
        { period: 'Q4', amount: 4000 },
      ],
    });
    expect(byType('member.deleted')[0]).toMatchObject({ member_id: member.member_id });
    const snapshots = byType('snapshot.committed');
    expect(snapshots[1]).toMatchObject({
      snapshot_at: '2026-05-21T12:00:00.000Z',
      mode: 'full',
      counts: { deals: MAIN_FIXTURE.deals.length + 1, pipelines: 2 },
    });
    expect(byType('alert.triggered')[0]).toEqual({
      rule_id: rule.rule_id,
      pipeline_id: 'sales',
      metric: 'open_opportunities',
      condition: 'above',
      threshold: before,
      value: before + 1,
      previous_value: before,
      snapshot_id: snapshots[1].snapshot_id,
    });
    // Every event of the outbox was delivered to the one webhook that wants them all.
    expect(await EventModel.countDocuments({})).toBe(expected.length);
    const log = await ok('GET', `/webhooks/${hook.id}/deliveries?limit=100`);
    expect(log.deliveries).toHaveLength(expected.length);
    expect(log.deliveries.every((d: any) => d.status === 'succeeded')).toBe(true);
    expect(log.deliveries[0]).toMatchObject({ response_status: 200, next_attempt_at: null });
    await ok('DELETE', `/alerts/rules/${rule.rule_id}`);
  });
});

/** A sample of GET /metrics (0 when absent): the sum over the series whose labels match. */
async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const answer = await gateway.request('GET', '/metrics');
  expect(answer.status).toBe(200);
  return parseExposition(answer.body as string)
    .samples.filter(
      (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
    )
    .reduce((sum, s) => sum + s.value, 0);
}

describe('retries and disabling', () => {
  it('delivers on the fourth try to a receiver that fails three times, at the configured delays', async () => {
    const attempts = 'gateway_webhook_attempt_duration_seconds_count';
    const retryingBefore = await metric(attempts, { outcome: 'retrying' });
    const succeededBefore = await metric(attempts, { outcome: 'succeeded' });
    const latencyBefore = await metric('gateway_webhook_delivery_latency_seconds_count');
    const hook = await createWebhook({ events: ['settings.updated'] });
    let calls = 0;
    receiver.answer = () => (++calls <= 3 ? 500 : 200);
    await ok('POST', '/settings/currencies', { currency: 'USD' });
    await receiver.waitFor((got) => got.some((r) => r.answered === 200));
    const tries = receiver.received;
    expect(tries.map((r) => r.answered)).toEqual([500, 500, 500, 200]);
    expect(new Set(tries.map((r) => r.id)).size).toBe(1);
    for (let i = 1; i < tries.length; i += 1) {
      const gap = tries[i].at - tries[i - 1].at;
      expect(gap).toBeGreaterThanOrEqual(SCHEDULE[i - 1] - 20);
      expect(gap).toBeLessThan(SCHEDULE[i - 1] + 600);
    }
    const log = await ok('GET', `/webhooks/${hook.id}/deliveries`);
    expect(log.deliveries[0].attempts.map((a: any) => a.response_status)).toEqual([
      500, 500, 500, 200,
    ]);
    expect(log.deliveries[0].status).toBe('succeeded');
    // GET /metrics counts the attempts by outcome and the delivery's latency, retries included.
    expect(await metric(attempts, { outcome: 'retrying' })).toBe(retryingBefore + 3);
    expect(await metric(attempts, { outcome: 'succeeded' })).toBe(succeededBefore + 1);
    expect(await metric('gateway_webhook_delivery_latency_seconds_count')).toBe(latencyBefore + 1);
    const latency = await metric('gateway_webhook_delivery_latency_seconds_sum');
    expect(latency).toBeGreaterThanOrEqual((SCHEDULE[0] + SCHEDULE[1] + SCHEDULE[2]) / 1000);
    expect(await metric('gateway_events_outbox_depth', { queue: 'deliveries' })).toBe(0);
    await ok('DELETE', `/webhooks/${hook.id}`);
  });

  it('disables the endpoint after the last retry fails, and a manual retry sends it again once enabled', async () => {
    const hook = await createWebhook({ events: ['settings.updated'] });
    receiver.answer = () => 503;
    await ok('POST', '/settings/currencies', { currency: 'GBP' });
    await receiver.waitFor((got) => got.length === SCHEDULE.length + 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const { webhook } = await ok('GET', `/webhooks/${hook.id}`);
    expect(webhook.enabled).toBe(false);
    expect(webhook.disabled_reason).toMatch(/failed 4 times/);
    const [delivery] = (await ok('GET', `/webhooks/${hook.id}/deliveries`)).deliveries;
    expect(delivery.status).toBe('failed');

    const refused = await gateway.request(
      'POST',
      `/webhooks/${hook.id}/deliveries/${delivery.delivery_id}/retry`,
    );
    expect(refused.status).toBe(409);
    await ok('PATCH', `/webhooks/${hook.id}`, { enabled: true });
    receiver.answer = () => 200;
    receiver.received.length = 0;
    await ok('POST', `/webhooks/${hook.id}/deliveries/${delivery.delivery_id}/retry`);
    await receiver.waitFor((got) => got.length === 1);
    expect(receiver.received[0].id).toBe(delivery.event_id);
    await ok('DELETE', `/webhooks/${hook.id}`);
  });

  it('disables the endpoint at once on 410 Gone', async () => {
    const hook = await createWebhook({ events: ['settings.updated'] });
    receiver.answer = () => 410;
    await ok('POST', '/settings/currencies', { currency: 'SEK' });
    await receiver.waitFor((got) => got.length === 1);
    await new Promise((resolve) => setTimeout(resolve, SCHEDULE[0] + 300));
    expect(receiver.received).toHaveLength(1);
    const { webhook } = await ok('GET', `/webhooks/${hook.id}`);
    expect(webhook.enabled).toBe(false);
    expect(webhook.disabled_reason).toMatch(/410/);
    await ok('POST', '/settings/currencies', { currency: 'NOK' });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(receiver.received).toHaveLength(1);
    await ok('DELETE', `/webhooks/${hook.id}`);
  });
});

describe('filters, replay, secrets and roles', () => {
  it('delivers only the types and the team a webhook asks for', async () => {
    const east = await createWebhook({ events: ['member.created'], filter: { team_id: 'east' } });
    await ok('POST', '/teams/members', {
      lastname: 'East',
      firstname: 'Eve',
      email: 'eve.east@example.com',
      role: 'member',
      memberOf: { team_id: 'east' },
    });
    await ok('POST', '/teams/members', {
      lastname: 'West',
      firstname: 'Walt',
      email: 'walt.west@example.com',
      role: 'member',
      memberOf: { team_id: 'west' },
    });
    await ok('POST', '/settings/currencies', { currency: 'CHF' });
    await receiver.waitFor((got) => got.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(
      receiver.received.map((r) => [r.body.type, r.body.data.member.memberOf.team_id]),
    ).toEqual([['member.created', 'east']]);
    await ok('DELETE', `/webhooks/${east.id}`);
  });

  it('replays the events since a time, and signs with both secrets after a rotation', async () => {
    const since = new Date().toISOString();
    await ok('POST', '/settings/currencies', { currency: 'DKK' });
    await ok('POST', '/settings/currencies', { currency: 'EUR' });
    const hook = await createWebhook({ events: ['settings.updated'] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(0);
    const { webhook } = await ok('POST', `/webhooks/${hook.id}/rotate-secret`);
    expect(webhook.secret).not.toBe(hook.secret);
    receiver.secrets = [webhook.secret];
    const replay = await ok('POST', `/webhooks/${hook.id}/replay`, { since });
    expect(replay).toMatchObject({ deliveries: 2, complete: true });
    await receiver.waitFor((got) => got.length === 2);
    expect(receiver.received.map((r) => r.body.data.currency).sort()).toEqual(['DKK', 'EUR']);
    expect(receiver.received.every((r) => r.verified && r.signature.split(' ').length === 2)).toBe(
      true,
    );
    await ok('DELETE', `/webhooks/${hook.id}`);
  });

  it('refuses webhooks to anyone but an admin, and unknown event types', async () => {
    const { members } = await ok('GET', '/teams/members?limit=100');
    const grace = members.find((m: any) => m.email === 'grace@example.com');
    const token = await gateway.tokenFor(grace.member_id);
    const refused = await gateway.request('POST', '/webhooks', {
      token,
      body: { url: receiver.url, events: ['*'] },
    });
    expect(refused.status).toBe(403);
    expect((await gateway.request('GET', '/webhooks', { token })).status).toBe(403);
    const unknown = await gateway.request('POST', '/webhooks', {
      body: { url: receiver.url, events: ['deal.teleported'] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].field).toBe('events');
  });
});
