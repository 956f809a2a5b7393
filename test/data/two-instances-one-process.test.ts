import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config';
import { buildApp } from '../../src/server/build-app';
import { MAIN_FIXTURE, toImportBody } from '../pipelines/fixtures/crm-fixture';
import { startGateway, type TestGateway } from '../helpers/gateway';

/**
 * Two gateway instances in one process on one database: A with the embedded server in process
 * (its version counters read from memory), B as another instance would be, reading them with a
 * round trip. Each owns its caches; a write answered by one is seen by the other's next request.
 */
let a: TestGateway;
let b: FastifyInstance;
let bUrl: string;

async function startInstanceB(maxAgeMs: number): Promise<void> {
  const config = { ...loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT: '0', CACHE_MAX_AGE_MS: String(maxAgeMs) }), port: 0, host: '127.0.0.1' };
  b = await buildApp({ connection: a.connection, config, secrets: { jwtSecret: a.jwtSecret, adminToken: a.adminToken, generatedAdminToken: null } });
  await b.listen({ port: 0, host: '127.0.0.1' });
  bUrl = `http://127.0.0.1:${(b.server.address() as AddressInfo).port}`;
}

async function onB(path: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${bUrl}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${a.adminToken}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
  });
  return { status: res.status, body: await res.json() };
}

describe('two instances in one process, writes through the gateway', () => {
  beforeAll(async () => {
    a = await startGateway({ env: { RATE_LIMIT: '0' } });
    await startInstanceB(60_000);
    await a.request('POST', '/settings/periods', { body: { period: 'quarterly' } });
    await a.request('POST', '/crm/imports', { body: toImportBody(MAIN_FIXTURE, '2026-05-20T12:00:00Z') });
  });
  afterAll(async () => {
    await b?.close();
    await a?.stop();
  });

  it('each sees the other\'s writes at once, though both keep answers between writes', async () => {
    for (let i = 0; i < 40; i += 1) {
      const currency = i % 2 === 0 ? 'EUR' : 'USD';
      const [writer, reader] = i % 4 < 2 ? ['a', 'b'] : ['b', 'a'];
      if (writer === 'a') expect((await a.request('POST', '/settings/currencies', { body: { currency } })).status).toBe(200);
      else expect((await onB('/settings/currencies', { method: 'POST', body: JSON.stringify({ currency }) })).status).toBe(200);
      const read: any = reader === 'a' ? (await a.request('GET', '/pipelines/metrics?pipeline_id=sales&metrics=pipeline_value')).body : (await onB('/pipelines/metrics?pipeline_id=sales&metrics=pipeline_value')).body;
      expect({ i, unit: read.metrics[0].metric_value.unit }).toEqual({ i, unit: currency });
      // read again: the kept answer of the reader is the new one
      const again = reader === 'a' ? (await a.request('GET', '/settings/currencies')).body : (await onB('/settings/currencies')).body;
      expect(again.currency).toBe(currency);
    }
  });

  it('answers a kept answer with the version read alone', async () => {
    const reads: string[] = [];
    a.onCommand((name, _db, body) => {
      if (name === 'find') reads.push(String(body.find));
    });
    const kept = await a.request('GET', '/pipelines');
    reads.length = 0;
    expect((await a.request('GET', '/pipelines')).body).toEqual(kept.body);
    expect(reads).toEqual(['data_versions']);
  });
});
