/**
 * Deal events derived from history: a first import emits snapshot.committed alone; the next one
 * emits one event per deal change between its snapshot and the one before (created, stage, close
 * date with `pushed`, amount, won, lost, removed), each once, to webhooks (verified signatures,
 * filters by team and pipeline) and subscribers (filtered by pipeline). Both database modes.
 */
import { EventModel } from '../../src/models/event.model';
import { startGateway, type TestGateway } from '../helpers/gateway';
import {
  MAIN_FIXTURE,
  toImportBody,
  type CrmFixture,
  type FixtureDeal,
} from '../pipelines/fixtures/crm-fixture';
import { startReceiver, type Receiver } from './support/receiver';
import { subscribe, type Subscriber } from './support/subscriber';

const EVENTS = `subscription($types: [String!], $pipelineId: ID) {
  events(types: $types, pipelineId: $pipelineId) { id type timestamp data }
}`;

let gateway: TestGateway;
let everything: Receiver;
let west: Receiver;
const open: Subscriber[] = [];

async function ok(method: string, path: string, body?: unknown): Promise<any> {
  const response = await gateway.request(method, path, { body });
  if (response.status !== 200)
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** MAIN_FIXTURE a day later: every kind of deal change once, and deals left alone. */
function nextDay(fixture: CrmFixture): CrmFixture {
  const change: Record<string, Partial<FixtureDeal>> = {
    '1001': { stage: 'proposal' },
    '1002': { closedate: '2026-07-31T00:00:00Z' },
    '3001': { amount: '5500' },
    '2002': { stage: 'won' },
    '4002': { stage: 'lost' },
    // From the renewals definition to sales: one deal whose stage changed.
    '3004': { pipeline: 'sales', stage: 'qualified' },
  };
  return {
    ...fixture,
    deals: [
      ...fixture.deals
        .filter((deal) => deal.id !== '2001')
        .map((deal) => ({ ...deal, ...change[deal.id] })),
      {
        id: '1099',
        pipeline: 'sales',
        stage: 'proposal',
        amount: '1234',
        owner: '101',
        createdate: '2026-05-20T15:00:00Z',
        closedate: '2026-06-20T00:00:00Z',
      },
    ],
  };
}

beforeAll(async () => {
  [everything, west] = await Promise.all([startReceiver(), startReceiver()]);
  gateway = await startGateway({
    env: { EVENTS_POLL_MS: '50', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', RATE_LIMIT: '0' },
  });
  await ok('POST', '/settings/currencies', { currency: 'EUR' });
  await ok('POST', '/settings/periods', { period: 'quarterly' });
  for (const [receiver, filter] of [
    [everything, undefined],
    [west, { team_id: 'west' }],
  ] as const) {
    const { webhook } = await ok('POST', '/webhooks', { url: receiver.url, events: ['*'], filter });
    receiver.secrets.push(webhook.secret);
  }
});
afterAll(async () => {
  await Promise.all(open.map((s) => s.stop().catch(() => undefined)));
  await gateway?.stop();
  await Promise.all([everything?.close(), west?.close()]);
});

const dealEvents = (received: Receiver['received']) =>
  received.filter((r) => r.body.type.startsWith('deal.')).map((r) => r.body);

it('emits snapshot.committed alone for a first import, then each deal change once', async () => {
  const first = await ok(
    'POST',
    '/crm/imports',
    toImportBody(MAIN_FIXTURE, '2026-05-20T12:00:00Z'),
  );
  await everything.waitFor((got) => got.some((r) => r.body.type === 'snapshot.committed'));
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(dealEvents(everything.received)).toEqual([]);

  const { members } = await ok('GET', '/teams/members?limit=100');
  const id = (email: string) => members.find((m: any) => m.email === email).member_id;
  const [ada, grace, alan] = ['ada', 'grace', 'alan'].map((name) => id(`${name}@example.com`));
  const admin = await subscribe(gateway.url, gateway.adminToken, EVENTS, {
    types: ['deal.won', 'deal.lost', 'deal.created'],
    pipelineId: 'sales.team.east',
  });
  open.push(admin);

  const second = await ok(
    'POST',
    '/crm/imports',
    toImportBody(nextDay(MAIN_FIXTURE), '2026-05-21T12:00:00Z'),
  );
  const previous = first.snapshot_id;
  const snapshot = second.snapshot_id;
  expect(snapshot).not.toBe(previous);
  const expected = [
    {
      type: 'deal.stage_changed',
      data: {
        deal_id: '1001',
        pipeline_ids: ['sales', 'sales.team.east', `sales.member.${ada}`],
        from_stage: 'qualified',
        to_stage: 'proposal',
      },
    },
    {
      type: 'deal.close_date_changed',
      data: { deal_id: '1002', from: '2026-06-30', to: '2026-07-31', pushed: true },
    },
    {
      type: 'deal.created',
      data: {
        deal_id: '1099',
        pipeline_ids: ['sales', 'sales.team.east', `sales.member.${ada}`],
        stage: 'proposal',
        outcome: 'open',
        amount: 1234,
        close_date: '2026-06-20',
        owner_member_id: ada,
      },
    },
    { type: 'deal.removed', data: { deal_id: '2001', stage: 'qualified', outcome: 'open' } },
    {
      type: 'deal.stage_changed',
      data: { deal_id: '2002', from_stage: 'proposal', to_stage: 'won' },
    },
    {
      type: 'deal.won',
      data: {
        deal_id: '2002',
        pipeline_ids: ['sales', 'sales.team.east', `sales.member.${grace}`],
        outcome: 'won',
        amount: 800,
      },
    },
    { type: 'deal.amount_changed', data: { deal_id: '3001', from: 5000, to: 5500 } },
    {
      type: 'deal.stage_changed',
      data: {
        deal_id: '3004',
        pipeline_ids: [
          'renewals',
          'renewals.team.west',
          `renewals.member.${alan}`,
          'sales',
          'sales.team.west',
          `sales.member.${alan}`,
        ],
        from_stage: 'r-open',
        to_stage: 'qualified',
      },
    },
    {
      type: 'deal.stage_changed',
      data: { deal_id: '4002', from_stage: 'qualified', to_stage: 'lost' },
    },
    { type: 'deal.lost', data: { deal_id: '4002', pipeline_ids: ['sales'], outcome: 'lost' } },
  ];
  await everything.waitFor((got) => dealEvents(got).length >= expected.length);
  // Nothing more arrives: a second delivery of any of them would show here.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const order = (e: { type: string; data: Record<string, any> }) => `${e.data.deal_id} ${e.type}`;
  const got = dealEvents(everything.received).sort((a, b) => order(a).localeCompare(order(b)));
  expect(got).toHaveLength(expected.length);
  expected.sort((a, b) => order(a).localeCompare(order(b)));
  got.forEach((event, i) =>
    expect(event).toMatchObject({
      ...expected[i],
      data: { ...expected[i].data, snapshot_id: snapshot, previous_snapshot_id: previous },
    }),
  );
  expect(everything.received.every((r) => r.verified)).toBe(true);
  expect(await EventModel.countDocuments({ type: /^deal\./ })).toBe(expected.length);

  // The west team's webhook: the deals of west's members, and the account-wide snapshot events.
  await west.waitFor((got) => dealEvents(got).length >= 2);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(dealEvents(west.received).map(order).sort()).toEqual([
    '3001 deal.amount_changed',
    '3004 deal.stage_changed',
  ]);
  expect(west.received.filter((r) => r.body.type === 'snapshot.committed')).toHaveLength(2);

  // The subscriber to east's team pipeline: the deal won there and the one created, not 4002's loss.
  await admin.waitFor((items) => items.length >= 2);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(admin.items.map((item) => order(item.events)).sort()).toEqual([
    '1099 deal.created',
    '2002 deal.won',
  ]);
});

it('emits nothing for deals when the next import changes none', async () => {
  everything.received.length = 0;
  await ok('POST', '/crm/imports', toImportBody(nextDay(MAIN_FIXTURE), '2026-05-22T12:00:00Z'));
  await everything.waitFor((got) => got.some((r) => r.body.type === 'snapshot.committed'));
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(dealEvents(everything.received)).toEqual([]);
});
