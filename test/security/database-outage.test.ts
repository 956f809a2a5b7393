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

const ADMIN_TOKEN = 'outage-test-admin-token-0123456789';

function get(
  url: string,
  token: string | null = ADMIN_TOKEN,
): Promise<{ status: number; body: any; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { headers: token ? { authorization: `Bearer ${token}` } : {}, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString() || 'null'),
            ms: Date.now() - started,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

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

    const down = await get(`${url}/teams/kept`);
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({
      success: false,
      statusCode: 503,
      message: 'The database is unreachable; try again shortly',
    });
    expect(down.ms).toBeLessThan(9000); // well inside the 10 s request budget: no pile-up
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
