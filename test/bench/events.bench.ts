/**
 * Benchmark: events from commit to their readers, and what webhooks cost an import. Prints
 * figures; asserts nothing. Run with `npm run bench:events` (BENCH_EVENTS, default 1000 events per
 * case; BENCH_DEALS, default 1500 deals per import, which keeps the body under the 1 MiB limit). One gateway with the embedded store in this
 * process, at its default EVENTS_POLL_MS (250 ms), beside a webhook receiver that verifies every
 * signature and the subscribers' WebSocket clients: they share this process's CPU, so the figures
 * are a floor for a gateway alone.
 *
 * 1. Webhook: one webhook wants `settings.updated`; BENCH_EVENTS settings writes, 8 at a time;
 *    events per second from the first write to the last delivery received, and each event's
 *    latency from its commit (`timestamp`) to the receiver.
 * 2. Subscribers: 100 graphql-ws subscribers to `events`; the same writes; events per second until
 *    every subscriber has every event.
 * 3. Import: imports of BENCH_DEALS deals (2% of them changed each time, so each import derives
 *    deal events), in blocks of 3 back to back, alternately without webhooks and with 10 webhooks
 *    wanting every event, the outbox drained between blocks; the median import duration of each,
 *    for the first import of a block (nothing else under way) and for the others (the previous
 *    import's deliveries being sent meanwhile, in this same process).
 */
import 'reflect-metadata';
import { startReceiver, type Receiver } from '../events/support/receiver';
import { subscribe } from '../events/support/subscriber';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { parseExposition } from '../telemetry/exposition';
import {
  OWNERS,
  RENEWALS,
  SALES,
  toImportBody,
  type CrmFixture,
  type FixtureDeal,
} from '../pipelines/fixtures/crm-fixture';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);
const DEALS = Number(process.env.BENCH_DEALS ?? 1500);
const SUBSCRIBERS = 100;
const WEBHOOKS = 10;
const CONCURRENCY = 8;
const IMPORTS_PER_BLOCK = 3;
const BLOCKS = 4;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

async function ok(gateway: TestGateway, method: string, path: string, body?: unknown) {
  const response = await gateway.request(method, path, { body });
  if (response.status !== 200)
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** `count` settings writes, CONCURRENCY at a time, each an event (the currency flips). */
async function writeEvents(gateway: TestGateway, count: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const i = next++;
        await ok(gateway, 'POST', '/settings/currencies', { currency: i % 2 ? 'EUR' : 'USD' });
      }
    }),
  );
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** Waits until the outbox has nothing undone (GET /metrics, gateway_events_outbox_depth). */
async function drained(gateway: TestGateway): Promise<void> {
  for (;;) {
    const { body } = await gateway.request('GET', '/metrics');
    const depth = parseExposition(body as string)
      .samples.filter((s) => s.name === 'gateway_events_outbox_depth')
      .reduce((sum, s) => sum + s.value, 0);
    if (depth === 0) return;
    await sleep(100);
  }
}

async function webhookCase(gateway: TestGateway, receiver: Receiver): Promise<void> {
  const { webhook } = await ok(gateway, 'POST', '/webhooks', {
    url: receiver.url,
    events: ['settings.updated'],
  });
  receiver.secrets.push(webhook.secret);
  receiver.received.length = 0;
  const start = performance.now();
  const startMs = Date.now();
  await writeEvents(gateway, EVENTS);
  const written = performance.now();
  await until(() => receiver.received.length >= EVENTS, 600_000, 'the deliveries');
  const seconds = (Date.now() - startMs) / 1000;
  const latencies = receiver.received.map((r) => r.at - Date.parse(r.body.timestamp));
  console.log(
    `webhook: ${EVENTS} events in ${seconds.toFixed(2)} s: ${(EVENTS / seconds).toFixed(0)} events/s ` +
      `(writes alone ${(EVENTS / ((written - start) / 1000)).toFixed(0)}/s); commit to receiver ` +
      `p50 ${percentile(latencies, 50)} ms, p95 ${percentile(latencies, 95)} ms, max ${Math.max(...latencies)} ms; ` +
      `all verified: ${receiver.received.every((r) => r.verified)}, distinct ids: ${new Set(receiver.received.map((r) => r.id)).size}`,
  );
  await ok(gateway, 'DELETE', `/webhooks/${webhook.webhook_id}`);
}

async function subscribersCase(gateway: TestGateway): Promise<void> {
  const query = `subscription { events(types: ["settings.updated"]) { id type timestamp } }`;
  const subscribers = await Promise.all(
    Array.from({ length: SUBSCRIBERS }, () => subscribe(gateway.url, gateway.adminToken, query)),
  );
  const startMs = Date.now();
  await writeEvents(gateway, EVENTS);
  await until(
    () => subscribers.every((s) => s.items.length >= EVENTS),
    600_000,
    'every subscriber to have every event',
  );
  const seconds = (Date.now() - startMs) / 1000;
  console.log(
    `subscribers: ${EVENTS} events to each of ${SUBSCRIBERS} in ${seconds.toFixed(2)} s: ` +
      `${(EVENTS / seconds).toFixed(0)} events/s, ${((EVENTS * SUBSCRIBERS) / seconds).toFixed(0)} messages/s`,
  );
  await Promise.all(subscribers.map((s) => s.stop()));
}

/** BENCH_DEALS deals over both definitions and the three owners; import `k` changes 2% of them. */
function company(k: number): CrmFixture {
  const deals: FixtureDeal[] = [];
  const changed = Math.floor(DEALS * 0.02);
  for (let i = 0; i < DEALS; i += 1) {
    const renewal = i % 5 === 0;
    const bump = i >= (k * changed) % DEALS && i < ((k * changed) % DEALS) + changed ? k : 0;
    deals.push({
      id: String(100000 + i),
      pipeline: renewal ? 'renewals' : 'sales',
      stage: renewal ? 'r-open' : i % 3 === 0 ? 'proposal' : 'qualified',
      amount: String(1000 + (i % 97) * 10 + bump),
      owner: OWNERS[i % OWNERS.length].id,
      createdate: '2026-01-01T00:00:00Z',
      closedate: `2026-${String(5 + (i % 6)).padStart(2, '0')}-15T00:00:00Z`,
    });
  }
  return { definitions: [SALES, RENEWALS], owners: OWNERS, deals };
}

async function importCase(gateway: TestGateway, receiver: Receiver): Promise<void> {
  let k = 0;
  const at = (n: number) => new Date(Date.UTC(2026, 4, 20, 0, n)).toISOString();
  const bodies = Array.from({ length: 1 + BLOCKS * 2 * IMPORTS_PER_BLOCK }, (_, n) =>
    toImportBody(company(n), at(n)),
  );
  await ok(gateway, 'POST', '/crm/imports', bodies[k++]);
  const durations: Record<'none' | 'webhooks', number[]> = { none: [], webhooks: [] };
  let delivered = 0;
  for (let block = 0; block < BLOCKS * 2; block += 1) {
    const arm = block % 2 === 0 ? 'none' : 'webhooks';
    const hooks: string[] = [];
    // The receiver tries each secret it holds until one verifies: only this block's, so that its
    // own work (in this process) does not grow with the blocks before.
    receiver.secrets.length = 0;
    if (arm === 'webhooks')
      for (let w = 0; w < WEBHOOKS; w += 1) {
        const { webhook } = await ok(gateway, 'POST', '/webhooks', {
          url: receiver.url,
          events: ['*'],
        });
        receiver.secrets.push(webhook.secret);
        hooks.push(webhook.webhook_id);
      }
    receiver.received.length = 0;
    for (let i = 0; i < IMPORTS_PER_BLOCK; i += 1) {
      const started = performance.now();
      await ok(gateway, 'POST', '/crm/imports', bodies[k++]);
      durations[arm].push(performance.now() - started);
    }
    // Before the next block: the events of these imports derived and delivered.
    await sleep(1000);
    await drained(gateway);
    delivered += receiver.received.length;
    for (const id of hooks) await ok(gateway, 'DELETE', `/webhooks/${id}`);
  }
  const report = (label: string, pick: (position: number) => boolean) => {
    const of = (values: number[]) => values.filter((_, i) => pick(i % IMPORTS_PER_BLOCK));
    const [none, hooks] = [of(durations.none), of(durations.webhooks)];
    const [a, b] = [percentile(none, 50), percentile(hooks, 50)];
    const list = (values: number[]) => values.map((d) => d.toFixed(0)).join(', ');
    console.log(
      `import of ${DEALS} deals, ${label}: without webhooks median ${a.toFixed(0)} ms [${list(none)}], ` +
        `with ${WEBHOOKS} webhooks ${b.toFixed(0)} ms [${list(hooks)}]: ${(((b - a) / a) * 100).toFixed(1)} %`,
    );
  };
  report('first of each block (the outbox drained before it)', (position) => position === 0);
  report(
    "the others (the previous import's events delivered meanwhile)",
    (position) => position > 0,
  );
  report('all', () => true);
  console.log(`${delivered} deliveries made during the webhook blocks`);
}

async function main(): Promise<void> {
  const receiver = await startReceiver();
  const gateway = await startGateway({
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', RATE_LIMIT: '0', LOG_LEVEL: 'silent' },
  });
  try {
    await ok(gateway, 'POST', '/settings/currencies', { currency: 'EUR' });
    await ok(gateway, 'POST', '/settings/periods', { period: 'quarterly' });
    await webhookCase(gateway, receiver);
    await subscribersCase(gateway);
    await ok(gateway, 'POST', '/settings/currencies', { currency: 'EUR' });
    await importCase(gateway, receiver);
  } finally {
    await gateway.stop();
    await receiver.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
