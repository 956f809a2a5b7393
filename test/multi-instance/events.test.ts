/**
 * Events across gateway processes: two instances on one database deliver each of 1000 events
 * exactly once to a healthy receiver between them; a subscriber on one instance receives the
 * event of a write made on the other within a second; and a gateway SIGKILLed while a delivery is
 * in flight (committed, not yet recorded as delivered) delivers it after its restart, on a
 * database reached by URI and on the embedded store's data directory alike.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEntry, type RunningEntry } from '../helpers/entry';
import { startStoreProcess, withDatabase, type StoreProcess } from '../helpers/store-process';
import { startReceiver, type Receiver } from '../events/support/receiver';
import { subscribe } from '../events/support/subscriber';

const EVENTS = 1000;
const ADMIN_TOKEN = `raw-admin-${randomBytes(16).toString('hex')}`;
const JWT_SECRET = randomBytes(32).toString('base64url');
const BASE_ENV = {
  ADMIN_TOKEN,
  JWT_SECRET,
  RATE_LIMIT: '0',
  SEED_DEMO: 'false',
  LOG_LEVEL: 'error',
  EVENTS_POLL_MS: '50',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms',
};

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

function call(base: string, method: string, route: string, body?: unknown): Promise<any> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { authorization: `Bearer ${ADMIN_TOKEN}` };
  if (payload !== undefined)
    Object.assign(headers, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(payload)),
    });
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${route}`, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200)
          reject(new Error(`${method} ${route}: ${res.statusCode} ${text}`));
        else resolve(JSON.parse(text));
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function stopEntry(entry: RunningEntry | undefined): Promise<void> {
  if (!entry || entry.child.exitCode !== null || entry.child.signalCode !== null) return;
  entry.child.kill('SIGTERM');
  await entry.exited;
}

async function createWebhook(base: string, receiver: Receiver, events: string[]): Promise<string> {
  const { webhook } = await call(base, 'POST', '/webhooks', { url: receiver.url, events });
  receiver.secrets.push(webhook.secret);
  return webhook.webhook_id;
}

describe('two instances on one database', () => {
  let store: StoreProcess;
  let scratch: string;
  let a: RunningEntry;
  let b: RunningEntry;
  let receiver: Receiver;

  beforeAll(async () => {
    scratch = mkdtempSync(path.join(tmpdir(), 'events-two-'));
    store = await startStoreProcess();
    receiver = await startReceiver();
    const env = { ...BASE_ENV, MONGODB_URI: withDatabase(store.uri, 'events-two') };
    [a, b] = await Promise.all([
      startEntry(path.join(scratch, 'a'), env),
      startEntry(path.join(scratch, 'b'), env),
    ]);
  }, 60_000);
  afterAll(async () => {
    agent.destroy();
    await Promise.all([stopEntry(a), stopEntry(b)]);
    await receiver?.close();
    await store?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it(`delivers each of ${EVENTS} events exactly once between them`, async () => {
    const hook = await createWebhook(a.url, receiver, ['settings.updated']);
    const currencies = ['EUR', 'USD', 'GBP', 'SEK'];
    let next = 0;
    const writer = async () => {
      while (next < EVENTS) {
        const i = next++;
        await call(i % 2 === 0 ? a.url : b.url, 'POST', '/settings/currencies', {
          currency: currencies[i % currencies.length],
        });
      }
    };
    await Promise.all(Array.from({ length: 4 }, writer));
    await receiver.waitFor((got) => new Set(got.map((r) => r.id)).size >= EVENTS, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const ids = receiver.received.map((r) => r.id);
    expect(new Set(ids).size).toBe(EVENTS);
    expect(ids).toHaveLength(EVENTS);
    expect(receiver.received.every((r) => r.verified === true && r.answered === 200)).toBe(true);
    await call(a.url, 'DELETE', `/webhooks/${hook}`);
  }, 120_000);

  it("sends a subscriber on one instance the events of the other's writes within a second", async () => {
    const subscriber = await subscribe(
      a.url,
      ADMIN_TOKEN,
      'subscription { events(types: ["member.created"]) { id type data } }',
    );
    try {
      for (let i = 0; i < 5; i += 1) {
        const { member } = await call(b.url, 'POST', '/teams/members', {
          lastname: 'Remote',
          firstname: `R${i}`,
          email: `remote-${i}@example.com`,
          role: 'member',
          memberOf: { team_id: 'east' },
        }).catch(async (error: Error) => {
          if (!/404/.test(error.message)) throw error;
          await call(b.url, 'POST', '/teams', { team_id: 'east', name: 'East' });
          return call(b.url, 'POST', '/teams/members', {
            lastname: 'Remote',
            firstname: `R${i}`,
            email: `remote-${i}@example.com`,
            role: 'member',
            memberOf: { team_id: 'east' },
          });
        });
        const answered = Date.now();
        await subscriber.waitFor((items) => items.length === i + 1, 5000);
        expect(Date.now() - answered).toBeLessThan(1000);
        expect(subscriber.items[i].events.data.member_id).toBe(member.member_id);
      }
    } finally {
      await subscriber.stop();
    }
  }, 60_000);
});

describe.each(['uri', 'embedded'] as const)(
  'a gateway SIGKILLed with a delivery in flight (%s database)',
  (mode) => {
    let store: StoreProcess | undefined;
    let scratch: string;
    let entry: RunningEntry | undefined;
    let receiver: Receiver;

    beforeAll(async () => {
      scratch = mkdtempSync(path.join(tmpdir(), 'events-kill-'));
      if (mode === 'uri') store = await startStoreProcess();
      receiver = await startReceiver();
    }, 60_000);
    afterAll(async () => {
      agent.destroy();
      await stopEntry(entry);
      await receiver?.close();
      await store?.stop();
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    });

    it('delivers it after the restart', async () => {
      const env = {
        ...BASE_ENV,
        ...(store ? { MONGODB_URI: withDatabase(store.uri, 'events-kill') } : {}),
      };
      const dataDir = path.join(scratch, 'gateway');
      entry = await startEntry(dataDir, env);
      await createWebhook(entry.url, receiver, ['settings.updated']);
      receiver.answer = () => 'hold';
      await call(entry.url, 'POST', '/settings/currencies', { currency: 'EUR' });
      await receiver.waitFor(() => receiver.holding() > 0);
      entry.child.kill('SIGKILL');
      await entry.exited;
      receiver.release(200);
      receiver.answer = () => 200;
      const before = receiver.received.length;
      entry = await startEntry(dataDir, env);
      await receiver.waitFor((got) => got.length > before, 20_000);
      const redelivered = receiver.received[receiver.received.length - 1];
      expect(redelivered.body).toMatchObject({
        type: 'settings.updated',
        data: { currency: 'EUR' },
      });
      expect(redelivered.verified).toBe(true);
    }, 90_000);
  },
);
