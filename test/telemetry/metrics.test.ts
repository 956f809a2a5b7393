import { startHubSpotServer, type HubSpotTestServer } from '../../src/fake-crm/hubspot-server';
import type { AddressInfo } from 'node:net';
import { Role } from '../../src/auth/role';
import { loadConfig } from '../../src/config';
import { buildApp } from '../../src/server/build-app';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { insertMember } from '../auth/members.fixture';
import { messyImport } from '../import/fixtures';
import { syncDataset, syncDeals, TOKEN } from '../sync/sync-dataset';
import { parseExposition, sampleValue, type Exposition } from './exposition';

const METRICS_TOKEN = 'metrics-scraper-token-0123456789';

/** Scrapes /metrics as Prometheus does, with a bearer token, and parses the exposition. */
async function scrape(gw: TestGateway, token: string = METRICS_TOKEN): Promise<Exposition> {
  const answer = await gw.request('GET', '/metrics', { token });
  expect(answer.status).toBe(200);
  expect(answer.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parseExposition(answer.body as string);
}

describe('GET /metrics (Prometheus text format, parsed by the test)', () => {
  let hubspot: HubSpotTestServer;
  let gw: TestGateway;
  beforeAll(async () => {
    hubspot = await startHubSpotServer({
      token: TOKEN,
      dataset: syncDataset(syncDeals(12, Date.now())),
      rateLimit: { max: 150, intervalMs: 10_000 },
    });
    gw = await startGateway({
      env: { METRICS_TOKEN, HUBSPOT_TOKEN: TOKEN, HUBSPOT_BASE_URL: hubspot.url },
    });
  });
  afterAll(async () => {
    await gw?.stop();
    await hubspot?.close();
  });

  it('answers the METRICS_TOKEN and admins; 401 without a token or with a wrong one, 403 for a member', async () => {
    expect((await gw.request('GET', '/metrics', { token: null })).status).toBe(401);
    expect(
      (await gw.request('GET', '/metrics', { token: 'not-the-token-0123456789' })).status,
    ).toBe(401);
    expect((await gw.request('GET', '/metrics')).status).toBe(200); // the admin token
    const memberToken = await gw.tokenFor(await insertMember(Role.MEMBER));
    const refused = await gw.request('GET', '/metrics', { token: memberToken });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('Only admins and METRICS_TOKEN may read /metrics');
    // The metrics token opens nothing else.
    expect((await gw.request('GET', '/teams', { token: METRICS_TOKEN })).status).toBe(401);
  });

  it('has the process metrics', async () => {
    const metrics = await scrape(gw);
    expect(metrics.types.get('process_cpu_user_seconds_total')).toBe('counter');
    expect(metrics.types.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
    expect(sampleValue(metrics, 'process_resident_memory_bytes', {})).toBeGreaterThan(0);
  });

  it('counts HTTP requests by route template and status in histograms', async () => {
    const before = await scrape(gw);
    const route = { method: 'GET', route: '/teams/:team_id', status_code: '404' };
    const countBefore = sampleValue(before, 'http_request_duration_seconds_count', route) ?? 0;
    for (const id of ['nope-1', 'nope-2', 'nope-3'])
      expect((await gw.request('GET', `/teams/${id}`)).status).toBe(404);
    expect((await gw.request('GET', '/no/such/path')).status).toBe(404);
    const after = await scrape(gw);
    expect(after.types.get('http_request_duration_seconds')).toBe('histogram');
    expect(sampleValue(after, 'http_request_duration_seconds_count', route)).toBe(countBefore + 3);
    expect(
      sampleValue(after, 'http_request_duration_seconds_bucket', { ...route, le: '+Inf' }),
    ).toBe(countBefore + 3);
    expect(
      sampleValue(after, 'http_request_duration_seconds_count', {
        method: 'GET',
        route: 'unmatched',
        status_code: '404',
      }),
    ).toBeGreaterThanOrEqual(1);
    // Paths as sent never become label values.
    expect(after.samples.some((s) => s.labels.route?.includes('nope'))).toBe(false);
  });

  it('counts GraphQL operations by name and outcome', async () => {
    await gw.graphql('query Viewer { viewer { role } }');
    await gw.graphql('query Viewer { viewer { role } }');
    await gw.graphql('query Broken { nothingHere }');
    await gw.graphql('query Missing { snapshot(id: "no-such-snapshot") { id } }');
    const metrics = await scrape(gw);
    const count = (labels: Record<string, string>) =>
      sampleValue(metrics, 'graphql_operation_duration_seconds_count', labels);
    expect(count({ operation_name: 'Viewer', operation_type: 'query', outcome: 'ok' })).toBe(2);
    expect(
      count({ operation_name: '(invalid)', operation_type: '(unknown)', outcome: 'invalid' }),
    ).toBe(1);
    expect(count({ operation_name: 'Missing', operation_type: 'query', outcome: 'error' })).toBe(1);
  });

  it('reports cache lookups and hit ratios of the answer and snapshot caches', async () => {
    await gw.request('GET', '/teams');
    await gw.request('GET', '/teams');
    const metrics = await scrape(gw);
    const hits = sampleValue(metrics, 'gateway_cache_lookups_total', {
      cache: 'rest_answers',
      result: 'hit',
    });
    expect(hits).toBeGreaterThanOrEqual(1);
    const ratio = sampleValue(metrics, 'gateway_cache_hit_ratio', { cache: 'rest_answers' })!;
    expect(ratio).toBeGreaterThan(0);
    expect(ratio).toBeLessThanOrEqual(1);
    for (const cache of ['graphql_answers', 'snapshots', 'snapshot_facts'])
      expect(
        sampleValue(metrics, 'gateway_cache_lookups_total', { cache, result: 'miss' }),
      ).not.toBeUndefined();
  });

  it('reports imports and syncs by outcome, and the HubSpot requests left', async () => {
    expect((await gw.request('POST', '/crm/imports', { body: messyImport() })).status).toBe(200);
    expect((await gw.request('POST', '/crm/imports', { body: messyImport() })).status).toBe(200);
    expect((await gw.request('POST', '/crm/syncs', { body: { force: true } })).status).toBe(200);
    const metrics = await scrape(gw);
    const imports = (outcome: string) =>
      sampleValue(metrics, 'gateway_import_duration_seconds_count', { mode: 'full', outcome });
    expect(imports('committed')).toBe(2); // the messy import, and the sync's
    expect(imports('reused')).toBe(1);
    expect(
      sampleValue(metrics, 'gateway_sync_duration_seconds_count', {
        trigger: 'api',
        mode: 'full',
        outcome: 'ok',
      }),
    ).toBe(1);
    const remaining = sampleValue(metrics, 'gateway_crm_api_requests_remaining', {
      window: 'rolling',
    })!;
    expect(remaining).toBe(150 - hubspot.requests.length);
    expect(sampleValue(metrics, 'gateway_crm_api_requests_limit', { window: 'rolling' })).toBe(150);
  });

  it('keeps the metrics of two apps in one process apart', async () => {
    // A second instance on the same connection, as another gateway on the database would be.
    const config = { ...loadConfig({ LOG_LEVEL: 'silent', METRICS_TOKEN }), port: 0 };
    const second = await buildApp({
      connection: gw.connection,
      config,
      secrets: { jwtSecret: gw.jwtSecret, adminToken: gw.adminToken, generatedAdminToken: null },
    });
    try {
      await second.listen({ port: 0, host: '127.0.0.1' });
      const url = `http://127.0.0.1:${(second.server.address() as AddressInfo).port}`;
      const get = (path: string, token = gw.adminToken) =>
        fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      const route = { method: 'GET', route: '/teams', status_code: '200' };
      const first = sampleValue(await scrape(gw), 'http_request_duration_seconds_count', route);
      expect((await get('/teams')).status).toBe(200);
      expect((await get('/teams')).status).toBe(200);
      const own = parseExposition(await (await get('/metrics', METRICS_TOKEN)).text());
      expect(sampleValue(own, 'http_request_duration_seconds_count', route)).toBe(2);
      expect(sampleValue(await scrape(gw), 'http_request_duration_seconds_count', route)).toBe(
        first,
      );
    } finally {
      await second.close();
    }
  });
});
