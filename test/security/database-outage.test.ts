import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config';
import { connectDatabase, type Database } from '../../src/db/connect-database';
import { ensureIndexes } from '../../src/db/ensure-indexes';
import { buildApp } from '../../src/server/build-app';
import { EmbeddedMongoServer } from '../../src/store/server';
import { TeamModel } from '../../src/models/team.model';
import { startStoreProcess, withDatabase, type StoreProcess } from '../helpers/store-process';

const ADMIN_TOKEN = 'outage-test-admin-token-0123456789';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
  ms: number;
}

function send(
  url: string,
  options: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
  token: string | null = ADMIN_TOKEN,
): Promise<Answer> {
  const started = Date.now();
  const text = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = {
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...(text === undefined
      ? {}
      : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }),
    ...options.headers,
  };
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: options.method ?? 'GET', headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: JSON.parse(Buffer.concat(chunks).toString() || 'null'),
            ms: Date.now() - started,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

function get(url: string, token: string | null = ADMIN_TOKEN): Promise<Answer> {
  return send(url, {}, token);
}

/** Waits until /readyz answers 200 (the gateway found its database again). */
async function ready(url: string): Promise<void> {
  for (let attempt = 0; attempt < 80; attempt += 1) {
    if ((await get(`${url}/readyz`, null)).status === 200) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('the gateway did not find its database again');
}

// How long a request may take to fail once its database stopped answering: the driver gives the
// database up within 2.5 s of its last heartbeat, and its one retry waits 1 s for a server
// (src/db/connect-database.ts). With a margin for a loaded machine.
const OUTAGE_BOUND_MS = 4_500;

describe('the database going away and coming back', () => {
  let dir: string;
  let store: EmbeddedMongoServer;
  let database: Database;
  let app: FastifyInstance;
  let url: string;
  const errorLines: string[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gateway-outage-'));
    store = await EmbeddedMongoServer.start({ dataDir: dir });
    // As against an external MongoDB: the gateway does not own the database server.
    database = await connectDatabase({ uri: store.uri, dbName: 'outage' });
    await ensureIndexes();
    const config = {
      ...loadConfig({ LOG_LEVEL: 'error', ADMIN_TOKEN, REQUEST_TIMEOUT_MS: '10000' }),
      port: 0,
    };
    // Unexpected errors are logged at `error`: kept, so a failure below names the error behind it.
    app = await buildApp({
      connection: database.connection,
      config,
      logStream: { write: (line: string) => errorLines.push(line) },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
    await store?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers fast 503s while it is down (REST and GraphQL, readyz too) and recovers by itself on restart', async () => {
    const port = store.port;
    const created = await new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ team_id: 'kept', name: 'Kept' });
      const req = http.request(
        `${url}/teams`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${ADMIN_TOKEN}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(created).toBe(200);
    expect((await get(`${url}/readyz`, null)).status).toBe(200);

    // Traffic keeps flowing while the database stops.
    let running = true;
    const statuses: number[] = [];
    const load = (async () => {
      while (running) {
        const results = await Promise.all(
          Array.from({ length: 4 }, () => get(`${url}/teams/kept`)),
        );
        statuses.push(...results.map((r) => r.status));
      }
    })();
    await new Promise((r) => setTimeout(r, 200));
    await store.stop();

    const [down, write] = await Promise.all([
      get(`${url}/teams/kept`),
      send(`${url}/teams`, {
        method: 'POST',
        body: { team_id: 'during', name: 'During' },
        headers: { 'idempotency-key': 'during-the-outage' },
      }),
    ]);
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({
      success: false,
      statusCode: 503,
      message: 'The database is unreachable; try again shortly',
    });
    // The key could not be claimed: the write never started, and the answer says so.
    expect(write.status).toBe(503);
    expect(write.body.message).toBe(
      'The database is unreachable; the write was not carried out: try again shortly',
    );
    // Well inside the 10 s request budget: no pile-up.
    expect(Math.max(down.ms, write.ms)).toBeLessThan(OUTAGE_BOUND_MS);
    expect((await get(`${url}/readyz`, null)).status).toBe(503);
    const gqlDown = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const body = JSON.stringify({ query: '{ team(id: "kept") { name } }' });
      const req = http.request(
        `${url}/graphql`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${ADMIN_TOKEN}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(chunks).toString()),
            }),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(gqlDown.status).toBe(503);
    expect(gqlDown.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');

    // Same port, same data directory; the gateway is not restarted.
    store = await EmbeddedMongoServer.start({ port, dataDir: dir });
    let recovered = await get(`${url}/teams/kept`);
    for (let attempt = 0; recovered.status !== 200 && attempt < 40; attempt += 1) {
      await new Promise((r) => setTimeout(r, 250));
      recovered = await get(`${url}/teams/kept`);
    }
    expect(recovered.status).toBe(200);
    expect(recovered.body).toMatchObject({ success: true });
    expect((await get(`${url}/readyz`, null)).status).toBe(200);
    const retried = await send(`${url}/teams`, {
      method: 'POST',
      body: { team_id: 'during', name: 'During' },
      headers: { 'idempotency-key': 'during-the-outage' },
    });
    expect(retried).toMatchObject({ status: 200, body: { team: { team_id: 'during' } } });
    running = false;
    await load;
    // Under the outage every answer was a success or a 503, never a 500 or a hang.
    expect(statuses.length).toBeGreaterThan(0);
    expect({ unexpected: statuses.filter((s) => s !== 200 && s !== 503), errorLines }).toEqual({
      unexpected: [],
      errorLines: [],
    });
  });
});

describe('a database process that stops answering (SIGSTOP) and resumes', () => {
  let store: StoreProcess;
  let database: Database;
  let app: FastifyInstance;
  let url: string;
  beforeAll(async () => {
    store = await startStoreProcess();
    const uri = withDatabase(store.uri, 'freeze');
    database = await connectDatabase({ uri, dbName: 'freeze' });
    await ensureIndexes();
    const config = {
      ...loadConfig({
        LOG_LEVEL: 'silent',
        ADMIN_TOKEN,
        MONGODB_URI: uri,
        REQUEST_TIMEOUT_MS: '10000',
      }),
      port: 0,
    };
    app = await buildApp({ connection: database.connection, config });
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    store?.child.kill('SIGCONT');
    await app?.close();
    await database?.close();
    await store?.stop();
  });

  it('fails reads and writes within about 3 s, and a retry with the same key learns what the write did', async () => {
    const created = await send(`${url}/teams`, {
      method: 'POST',
      body: { team_id: 'before', name: 'Before' },
    });
    expect(created.status).toBe(200);

    store.child.kill('SIGSTOP');
    const keyed = { 'idempotency-key': 'frozen-team-1' };
    const [read, write, unkeyed] = await Promise.all([
      get(`${url}/teams/before`),
      send(`${url}/teams`, { method: 'POST', body: { name: 'Frozen' }, headers: keyed }),
      send(`${url}/teams`, { method: 'POST', body: { team_id: 'unkeyed', name: 'Unkeyed' } }),
    ]);
    expect(read).toMatchObject({
      status: 503,
      body: { message: 'The database is unreachable; try again shortly' },
    });
    // Its key's record was the first thing the keyed write sent: the team was not.
    expect(write).toMatchObject({
      status: 503,
      body: {
        message: 'The database is unreachable; the write was not carried out: try again shortly',
      },
    });
    // Without a key, the insert itself was sent: it may be carried out when the database resumes.
    expect(unkeyed).toMatchObject({
      status: 503,
      body: {
        message:
          'The database stopped answering during the write: it may or may not have been carried out; check whether it took effect before sending it again (sent with an Idempotency-Key header, a retry with the same key would tell)',
      },
    });
    expect(Math.max(read.ms, write.ms, unkeyed.ms)).toBeLessThan(OUTAGE_BOUND_MS);

    store.child.kill('SIGCONT');
    await ready(url);
    const retried = await send(`${url}/teams`, {
      method: 'POST',
      body: { name: 'Frozen' },
      headers: keyed,
    });
    expect(retried).toMatchObject({ status: 200, body: { team: { name: 'Frozen' } } });
    const again = await send(`${url}/teams`, {
      method: 'POST',
      body: { name: 'Frozen' },
      headers: keyed,
    });
    expect(again).toMatchObject({ status: 200, body: retried.body });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await TeamModel.countDocuments({ name: 'Frozen' })).toBe(1);
  });
});

describe('the embedded store in process going away', () => {
  let database: Database;
  let app: FastifyInstance;
  let url: string;
  beforeAll(async () => {
    database = await connectDatabase({ inMemory: true, uri: '' });
    await ensureIndexes();
    const config = { ...loadConfig({ LOG_LEVEL: 'silent', ADMIN_TOKEN }), port: 0 };
    app = await buildApp({ connection: database.connection, config });
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('fails reads and writes within about 3 s', async () => {
    expect((await get(`${url}/teams`)).status).toBe(200);
    await database.embedded!.stop();
    const [read, write] = await Promise.all([
      get(`${url}/teams`),
      send(`${url}/teams`, { method: 'POST', body: { name: 'Gone' } }),
    ]);
    expect(read.status).toBe(503);
    expect(write.status).toBe(503);
    expect(Math.max(read.ms, write.ms)).toBeLessThan(OUTAGE_BOUND_MS);
  });
});
