/**
 * forecast.submitted: each call delivered once to an admin's webhook (signature verified), and
 * to subscribers as the forecast's reading rules have it: a member's call to that member and
 * admins, not to a member of another team; the company's call to admins only. The forecast
 * settings, settings.updated. Both database modes.
 */
import { startGateway, type TestGateway } from '../helpers/gateway';
import { MAIN_FIXTURE, toImportBody } from '../pipelines/fixtures/crm-fixture';
import { startReceiver, type Receiver } from './support/receiver';
import { subscribe, type Subscriber } from './support/subscriber';

const EVENTS = `subscription { events(types: ["forecast.submitted"]) { id type data } }`;

let gateway: TestGateway;
let receiver: Receiver;
const open: Subscriber[] = [];

async function ok(method: string, path: string, body?: unknown, token?: string): Promise<any> {
  const response = await gateway.request(method, path, { body, token });
  if (response.status !== 200)
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

beforeAll(async () => {
  receiver = await startReceiver();
  gateway = await startGateway({
    env: { EVENTS_POLL_MS: '50', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', RATE_LIMIT: '0' },
  });
  await ok('POST', '/settings/currencies', { currency: 'EUR' });
  await ok('POST', '/settings/periods', { period: 'quarterly' });
  await ok('POST', '/crm/imports', toImportBody(MAIN_FIXTURE, '2026-05-20T12:00:00Z'));
});
afterAll(async () => {
  await Promise.all(open.map((s) => s.stop().catch(() => undefined)));
  await gateway?.stop();
  await receiver?.close();
});

it('delivers each call once, to whoever may read it', async () => {
  const { webhook } = await ok('POST', '/webhooks', {
    url: receiver.url,
    events: ['forecast.submitted'],
  });
  receiver.secrets.push(webhook.secret);
  const { members } = await ok('GET', '/teams/members?limit=100');
  const id = (email: string) => members.find((m: any) => m.email === email).member_id;
  const [ada, alan] = await Promise.all(
    ['ada', 'alan'].map((name) => gateway.tokenFor(id(`${name}@example.com`))),
  );
  const [asAdmin, asAda, asAlan] = await Promise.all(
    [gateway.adminToken, ada, alan].map((token) => subscribe(gateway.url, token, EVENTS)),
  );
  open.push(asAdmin, asAda, asAlan);

  const now = new Date();
  const period = `${now.getUTCFullYear()}-Q${Math.floor(now.getUTCMonth() / 3) + 1}`;
  await ok('POST', '/forecasts/submissions', { period, call: 12000, note: 'two big ones' }, ada);
  await ok('POST', '/forecasts/submissions', { period, call: 90000, scope: 'company' });

  await receiver.waitFor((got) => got.length >= 2);
  await asAdmin.waitFor((items) => items.length >= 2);
  await asAda.waitFor((items) => items.length >= 1);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(receiver.received).toHaveLength(2);
  expect(receiver.received.every((r) => r.verified)).toBe(true);
  const memberCall = receiver.received.find((r) => r.body.data.scope !== 'company')!.body;
  expect(memberCall).toMatchObject({
    type: 'forecast.submitted',
    data: {
      scope: `member:${id('ada@example.com')}`,
      period,
      call: 12000,
      best_case: null,
      note: 'two big ones',
      submitted_by: id('ada@example.com'),
      submission_id: expect.any(String),
    },
  });
  expect(asAdmin.items.map((item) => item.events.data.scope).sort()).toEqual(
    [`member:${id('ada@example.com')}`, 'company'].sort(),
  );
  // Ada sees her own call, not the company's; Alan, in another team, sees neither.
  expect(asAda.items.map((item) => item.events.data.call)).toEqual([12000]);
  expect(asAlan.items).toEqual([]);
});

it('emits settings.updated for the forecast cadence and a stage mapping', async () => {
  const admin = await subscribe(
    gateway.url,
    gateway.adminToken,
    `subscription { events(types: ["settings.updated"]) { type data } }`,
  );
  open.push(admin);
  await ok('PUT', '/settings/forecast-cadence', { every: 'week', day: 'monday' });
  await ok('PUT', '/settings/forecast-categories', {
    pipeline_definition_id: 'sales',
    stages: { proposal: 'commit' },
  });
  await admin.waitFor((items) => items.length >= 2);
  expect(admin.items.map((item) => item.events.data)).toEqual([
    { changed: ['forecast_cadence'], forecast_cadence: { every: 'week', day: 'monday' } },
    {
      changed: ['forecast_categories'],
      forecast_categories: { pipeline_definition_id: 'sales', stages: { proposal: 'commit' } },
    },
  ]);
});
