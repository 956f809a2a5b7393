import { DealStatesModel } from '../../src/models/deal-states.model';
import { seedDemoIfEmpty } from '../../src/seed/seed-demo';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { messyImport } from '../import/fixtures';
import { startHubSpotServer } from '../../src/fake-crm/hubspot-server';
import { syncToEnd } from '../sync/follow-sync';
import { syncDataset, syncDeals, TOKEN } from '../sync/sync-dataset';

/**
 * The first import of the user's own data onto the demo company removes the demo first (its
 * members, teams, targets, forecast calls, settings and snapshots), saying so; the figures read afterwards are
 * the user's alone. Over HTTP, on a gateway seeded with a small demo company.
 */
let gw: TestGateway;

async function seed(): Promise<void> {
  const seeded = await seedDemoIfEmpty(
    gw.connection,
    { shared: false, seedDemo: true },
    { deals: 150 },
  );
  expect(seeded).not.toBeNull();
}

beforeEach(async () => {
  gw = await startGateway();
  await seed();
});
afterEach(async () => {
  await gw?.stop();
});

/** Ids of the committed snapshots (GraphQL `snapshots`), sorted. */
async function snapshotIds(): Promise<string[]> {
  const answer = await gw.graphql('{ snapshots(first: 100) { edges { node { id } } } }');
  expect(answer.body.errors).toBeUndefined();
  return (answer.body.data.snapshots.edges as { node: { id: string } }[])
    .map((e) => e.node.id)
    .sort();
}

/** Sorted ids of a list answer's items. */
async function ids(path: string, list: string, key: string): Promise<string[]> {
  const answer = await gw.request('GET', path);
  expect(answer.status).toBe(200);
  return (answer.body[list] as Record<string, string>[]).map((item) => item[key]).sort();
}

/** The quarter before the current one, as forecasts name it (`2026-Q3`): the demo called it all. */
function previousQuarter(): string {
  const now = new Date();
  const index = now.getUTCFullYear() * 4 + Math.floor(now.getUTCMonth() / 3) - 1;
  return `${Math.floor(index / 4)}-Q${(index % 4) + 1}`;
}

/** The company's calls of the previous quarter (GET /forecasts/submissions), as many as a page holds. */
async function companyCalls(): Promise<unknown[]> {
  const answer = await gw.request('GET', '/forecasts/submissions', {
    query: { period: previousQuarter(), scope: 'company', limit: '100' },
  });
  expect({ status: answer.status, body: answer.status === 200 ? null : answer.body }).toEqual({
    status: 200,
    body: null,
  });
  return answer.body.submissions as unknown[];
}

it('removes the demo at the first import of your data, says so, and reads your figures only', async () => {
  const demoSnapshots = await snapshotIds();
  expect((await companyCalls()).length).toBeGreaterThan(0);
  expect(demoSnapshots.length).toBeGreaterThan(2);
  expect(await ids('/teams', 'teams', 'team_id')).toEqual(['7101', '7102', '7103']);

  const imported = await gw.request('POST', '/crm/imports', { body: messyImport() });
  expect(imported.status).toBe(200);
  expect(imported.body.demo_removed).toBe(true);
  expect(imported.body.message).toMatch(
    /^The demo company was removed to make room for your data: its members, teams, targets, forecast calls, settings and snapshots\. Imported 8 deals in 2 pipelines as snapshot /,
  );

  // Only the import's own: one snapshot, its teams and members, no target, no settings.
  expect(await snapshotIds()).toEqual([imported.body.snapshot_id]);
  const teams = await ids('/teams', 'teams', 'team_id');
  expect(teams).not.toContain('7101');
  const members = await gw.request('GET', '/teams/members');
  expect(
    members.body.members.filter((m: { email: string }) => m.email.endsWith('demo-company.example')),
  ).toEqual([]);
  expect((await gw.request('GET', '/settings/currencies')).body.currency ?? null).toBeNull();
  const old = await gw.request('GET', '/pipelines', { query: { snapshot_id: demoSnapshots[0] } });
  expect(old.status).toBe(404);
  // Nothing of the demo's snapshots is left behind, the analytics' columns of its deals included.
  const statesOf = await DealStatesModel.distinct('snapshotId');
  expect(statesOf).toEqual([imported.body.snapshot_id]);

  // HubSpot's default pipeline is `default`, as the demo's is: its figures are the import's own
  // (in the currency and period set now, the demo's having gone with it).
  await setSettings();
  expect(await companyCalls()).toEqual([]);
  const own = await defaultPipelineMetrics();

  // The next import replaces nothing.
  const again = await gw.request('POST', '/crm/imports', {
    body: { ...messyImport(), snapshot_at: '2026-01-01T00:00:00Z' },
  });
  expect(again.status).toBe(200);
  expect(again.body.demo_removed).toBe(false);
  expect(await ids('/teams', 'teams', 'team_id')).toEqual(teams);

  // The same data imported into an empty database reads the same as after the demo's removal.
  await gw.stop();
  gw = await startGateway();
  expect((await gw.request('POST', '/crm/imports', { body: messyImport() })).status).toBe(200);
  await setSettings();
  expect(await defaultPipelineMetrics()).toEqual(own);
});

it('leaves the demo whole when the import is refused, and keeps settings you changed', async () => {
  const before = await snapshotIds();
  const refused = await gw.request('POST', '/crm/imports', {
    body: { pipelines: { results: [] }, owners: { results: [] }, deals: { results: [] } },
  });
  expect(refused.status).toBe(409);
  expect(await snapshotIds()).toEqual(before);
  expect(await ids('/teams', 'teams', 'team_id')).toEqual(['7101', '7102', '7103']);

  expect(
    (await gw.request('POST', '/settings/currencies', { body: { currency: 'USD' } })).status,
  ).toBe(200);
  const mapping = { query: { pipeline_definition_id: '90210001' } };
  expect((await gw.request('GET', '/settings/forecast-categories', mapping)).status).toBe(200);
  const imported = await gw.request('POST', '/crm/imports', { body: messyImport() });
  expect(imported.body.demo_removed).toBe(true);
  expect((await gw.request('GET', '/settings/currencies')).body.currency).toBe('USD');
  // The settings stay, but for the stage mappings, which named the demo's pipelines.
  expect((await gw.request('GET', '/settings/forecast-categories', mapping)).status).toBe(404);
  expect((await gw.request('GET', '/settings/forecast-cadence')).body).toMatchObject({
    every: 'week',
    day: 'monday',
  });
  expect(await companyCalls()).toEqual([]);
});

/** The currency and period the metrics need, set as a user would. */
async function setSettings(): Promise<void> {
  const currency = await gw.request('POST', '/settings/currencies', { body: { currency: 'EUR' } });
  expect(currency.status).toBe(200);
  const period = await gw.request('POST', '/settings/periods', { body: { period: 'quarterly' } });
  expect(period.status).toBe(200);
}

/** The metrics of pipeline `default` as the gateway answers them, by codename. */
async function defaultPipelineMetrics(): Promise<Record<string, unknown>> {
  const answer = await gw.request('GET', '/pipelines/metrics', {
    query: {
      pipeline_id: 'default',
      metrics: ['pipeline_value', 'open_opportunities', 'win_rate', 'average_deal_size'],
    },
  });
  expect({ status: answer.status, body: answer.status === 200 ? null : answer.body }).toEqual({
    status: 200,
    body: null,
  });
  return Object.fromEntries(
    answer.body.metrics.map(
      (m: { metric_definition: { api_codename: string }; metric_value: { value: unknown } }) => [
        m.metric_definition.api_codename,
        m.metric_value.value,
      ],
    ),
  );
}

it('removes the demo at the first sync too, saying so in the run', async () => {
  const hubspot = await startHubSpotServer({
    token: TOKEN,
    dataset: syncDataset(syncDeals(12, Date.now())),
  });
  try {
    await gw.stop();
    gw = await startGateway({
      env: { HUBSPOT_TOKEN: TOKEN, HUBSPOT_BASE_URL: hubspot.url },
      hubspotClient: { baseDelayMs: 5, maxDelayMs: 20, searchIntervalMs: 0 },
    });
    await seed();
    expect((await snapshotIds()).length).toBeGreaterThan(2);
    const { ended } = await syncToEnd(gw);
    expect(ended.body.sync.status).toBe('succeeded');
    expect(ended.body.message).toMatch(
      /^Full HubSpot sync \S+ succeeded: snapshot \S+ committed \(12 added, 0 changed, 0 unchanged, 0 removed\)\. The demo company was removed to make room for your data: its members, teams, targets, forecast calls, settings and snapshots$/,
    );
    expect(await snapshotIds()).toEqual([ended.body.sync.snapshot_id]);
  } finally {
    await hubspot.close();
  }
});
