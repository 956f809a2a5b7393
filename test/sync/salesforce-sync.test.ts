import { OpportunityModel, OPEN_SEQ } from '../../src/models/opportunity.model';
import { CrmSyncStateModel, SYNC_STATE_ID } from '../../src/models/crm-sync-state.model';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { parseExposition, sampleValue } from '../telemetry/exposition';
import {
  startSalesforceServer,
  type RecordedRequest,
  type SalesforceOrg,
  type SalesforceTestServer,
} from '../helpers/salesforce-server';
import { followSync, followSyncGraphql, syncToEnd } from './follow-sync';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  expectedSalesforceMetrics,
  moveTo,
  NEW_BUSINESS,
  RENEWAL,
  salesforceOpportunities,
  salesforceOrg,
} from './salesforce-dataset';

const NOW = Date.now();
const FAST_RETRIES = { baseDelayMs: 5, maxDelayMs: 20, maxAttempts: 3 };
const OPTIONS = { recordTypes: true, multiCurrency: true };

function salesforceEnv(salesforce: SalesforceTestServer, extra: Record<string, string> = {}) {
  return {
    CRM_PROVIDER: 'salesforce',
    SALESFORCE_LOGIN_URL: salesforce.url,
    SALESFORCE_CLIENT_ID: CLIENT_ID,
    SALESFORCE_CLIENT_SECRET: CLIENT_SECRET,
    ...extra,
  };
}

async function configure(gateway: TestGateway): Promise<void> {
  expect(
    (await gateway.request('POST', '/settings/currencies', { body: { currency: 'EUR' } })).status,
  ).toBe(200);
  expect(
    (await gateway.request('POST', '/settings/periods', { body: { period: 'quarterly' } })).status,
  ).toBe(200);
}

/** The metrics of a pipeline definition as the gateway answers them, by codename. */
async function gatewayMetrics(
  gateway: TestGateway,
  pipelineId: string,
): Promise<Record<string, number | null>> {
  const response = await gateway.request('GET', '/pipelines/metrics', {
    query: {
      pipeline_id: pipelineId,
      metrics: [
        'pipeline_value',
        'weighted_pipeline_value',
        'open_opportunities',
        'win_rate',
        'average_deal_size',
      ],
    },
  });
  expect(response.status).toBe(200);
  return Object.fromEntries(
    response.body.metrics.map(
      (m: {
        metric_definition: { api_codename: string };
        metric_value: { value: number | null };
      }) => [m.metric_definition.api_codename, m.metric_value.value],
    ),
  );
}

async function expectMetricsMatch(gateway: TestGateway, org: SalesforceOrg): Promise<void> {
  for (const pipelineId of [NEW_BUSINESS, RENEWAL]) {
    expect({ pipelineId, metrics: await gatewayMetrics(gateway, pipelineId) }).toEqual({
      pipelineId,
      metrics: expectedSalesforceMetrics(org, pipelineId),
    });
  }
}

const soqlOf = (r: RecordedRequest) => (typeof r.body === 'string' ? r.body : '');
const opportunityQueries = (requests: RecordedRequest[], rest: 'query' | 'queryAll') =>
  requests.filter(
    (r) =>
      r.path.endsWith(`/${rest}`) &&
      /FROM Opportunity( |$)/.test(soqlOf(r).replace(/\([^()]*\)/g, '')),
  );

/** Everything a sync could write but its run and lease. */
async function written(): Promise<Record<string, unknown>> {
  const state = await CrmSyncStateModel.findById(SYNC_STATE_ID).lean();
  return {
    snapshots: await SnapshotModel.find({}, { _id: 1, status: 1 }).sort({ _id: 1 }).lean(),
    mark: state?.highWaterMark ?? null,
  };
}

describe('Salesforce sync over HTTP', () => {
  let salesforce: SalesforceTestServer;
  let gateway: TestGateway;

  beforeAll(async () => {
    salesforce = await startSalesforceServer({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      org: salesforceOrg(salesforceOpportunities(45, NOW, OPTIONS), OPTIONS),
      pageSize: 10,
      childPageSize: 2,
    });
    gateway = await startGateway({
      env: salesforceEnv(salesforce),
      salesforceClient: FAST_RETRIES,
    });
    await configure(gateway);
  });
  afterAll(async () => {
    await gateway?.stop();
    await salesforce?.close();
  });

  it('syncs in full as a job: sales processes as pipelines, every opportunity, the metrics equal to sums computed from the org, the stage history from OpportunityHistory', async () => {
    const { started, ended } = await syncToEnd(gateway);
    expect(started.body.sync).toMatchObject({
      provider: 'salesforce',
      mode: 'full',
      status: 'running',
    });
    expect(ended.body.sync).toMatchObject({
      provider: 'salesforce',
      mode: 'full',
      status: 'succeeded',
      progress: { deals_read: 45 },
      counts: { pipelines: 2, deals: 45 },
      changes: { added: 45, changed: 0, unchanged: 0, removed: 0 },
      error: null,
    });
    await expectMetricsMatch(gateway, salesforce.org);
    // Paged with nextRecordsUrl, 10 a page.
    expect(salesforce.requests.filter((r) => /\/query\/01g/.test(r.path)).length).toBeGreaterThan(
      3,
    );

    // Every stage an opportunity entered, when OpportunityHistory says it did.
    for (const o of salesforce.org.opportunities.slice(0, 8)) {
      const version = await OpportunityModel.findOne({ dealId: o.Id, toSeq: OPEN_SEQ }).lean();
      expect({
        id: o.Id,
        entries: (version?.stageHistory ?? []).map((e) => [
          e.stageId,
          new Date(e.at!).toISOString(),
        ]),
      }).toEqual({
        id: o.Id,
        entries: o.history.map((h) => [h.StageName, new Date(h.CreatedDate).toISOString()]),
      });
    }
  });

  it('syncs the changes next through queryAll: stage moves, amounts, deletions, a new opportunity, one stamped in the same second as the cursor, through an expired session and REQUEST_LIMIT_EXCEEDED', async () => {
    const org = salesforce.org;
    const opportunities = org.opportunities;
    const mark = Math.max(...opportunities.map((o) => Date.parse(o.SystemModstamp)));
    const modified = new Date(Math.floor(NOW / 1000) * 1000).toISOString();
    moveTo(opportunities[0]!, 'Qualification', NOW, modified); // Prospecting → Qualification
    moveTo(opportunities[1]!, 'Closed Won', NOW, modified);
    moveTo(opportunities[2]!, 'Closed Lost', NOW, modified);
    opportunities[4]!.Amount = 77_777;
    opportunities[4]!.SystemModstamp = modified;
    opportunities[5]!.IsDeleted = true;
    opportunities[5]!.SystemModstamp = modified;
    // Committed late in the same second as the cursor: SOQL compares to the second.
    const [late, fresh] = salesforceOpportunities(47, NOW, OPTIONS).slice(45);
    late!.SystemModstamp = new Date(mark).toISOString();
    fresh!.SystemModstamp = modified;
    opportunities.push(late!, fresh!);

    salesforce.fail({ expireSessions: true }, { match: (r) => /\/queryAll$/.test(r.path) });
    salesforce.fail(
      {
        status: 403,
        errorCode: 'REQUEST_LIMIT_EXCEEDED',
        message: 'ConcurrentPerOrgLongTxn Limit exceeded.',
      },
      { match: (r) => /\/query$/.test(r.path) },
    );
    const before = salesforce.requests.length;
    const tokensBefore = salesforce.requests.filter((r) => r.path === '/services/oauth2/token');
    const { ended } = await syncToEnd(gateway);
    const requests = salesforce.requests.slice(before);
    expect(ended.body.sync).toMatchObject({
      mode: 'incremental',
      status: 'succeeded',
      counts: { deals: 46 },
      changes: { added: 2, changed: 4, removed: 1 },
    });
    // Read again within the look-back: the one at the cursor at least, unchanged.
    expect(ended.body.sync.changes.unchanged).toBeGreaterThanOrEqual(1);
    expect(opportunityQueries(requests, 'queryAll').length).toBeGreaterThan(0);
    expect(soqlOf(opportunityQueries(requests, 'queryAll')[0]!)).toMatch(/SystemModstamp >= /);
    expect(
      salesforce.requests.filter((r) => r.path === '/services/oauth2/token').length -
        tokensBefore.length,
    ).toBe(1);
    const state = await CrmSyncStateModel.findById(SYNC_STATE_ID).lean();
    expect(state?.highWaterMark?.toISOString()).toBe(modified);
    await expectMetricsMatch(gateway, org);
  });

  it('commits no snapshot when nothing changed', async () => {
    const before = await written();
    const { ended } = await syncToEnd(gateway);
    expect(ended.body.sync).toMatchObject({
      mode: 'incremental',
      status: 'succeeded',
      snapshot_id: null,
      changes: { added: 0, changed: 0, removed: 0 },
    });
    expect(ended.body.sync.changes.unchanged).toBeGreaterThan(0);
    expect(await written()).toEqual(before);
  });

  it('fails a sync cut off mid-way keeping nothing, and the next resumes from the last committed cursor', async () => {
    const modified = new Date(Math.floor(NOW / 1000) * 1000 + 60_000).toISOString();
    for (const o of salesforce.org.opportunities.slice(10, 30)) {
      o.Amount = (o.Amount ?? 0) + 1;
      o.SystemModstamp = modified;
    }
    const before = await written();
    // The second page never comes: every attempt at it fails.
    salesforce.fail({ status: 503 }, { times: 3, match: (r) => /\/query(All)?\/01g/.test(r.path) });
    const { ended: failed } = await syncToEnd(gateway);
    expect(failed.body.sync).toMatchObject({ status: 'failed', snapshot_id: null });
    expect(failed.body.sync.error).toMatch(
      /^Salesforce did not answer .* after 3 attempts; last: 503$/,
    );
    expect(failed.body.sync.error).not.toContain(CLIENT_SECRET);
    expect(await written()).toEqual(before);

    const { ended: next } = await syncToEnd(gateway);
    expect(next.body.sync).toMatchObject({
      mode: 'incremental',
      status: 'succeeded',
      changes: { added: 0, changed: 20, removed: 0 },
    });
    await expectMetricsMatch(gateway, salesforce.org);
  });

  it('does not follow a redirect to another origin: the run fails saying so, keeping nothing', async () => {
    const before = await written();
    salesforce.fail(
      { redirect: 'http://127.0.0.1:9/services/data/v62.0/queryAll' },
      { match: (r) => /\/queryAll$/.test(r.path) },
    );
    const { ended } = await syncToEnd(gateway, { mode: 'incremental' });
    expect(ended.body.sync.status).toBe('failed');
    expect(ended.body.sync.error).toContain('to http://127.0.0.1:9, which is not followed');
    expect(await written()).toEqual(before);
  });

  it('starts and follows a Salesforce sync over GraphQL', async () => {
    const mutation = await gateway.graphql(
      'mutation { syncCrmData(mode: FULL) { id provider mode status } }',
    );
    expect(mutation.body.data.syncCrmData).toMatchObject({
      provider: 'SALESFORCE',
      mode: 'FULL',
      status: 'RUNNING',
    });
    const ended = await followSyncGraphql(
      gateway,
      mutation.body.data.syncCrmData.id,
      'changes { added changed unchanged removed } error',
    );
    expect(ended).toMatchObject({
      status: 'SUCCEEDED',
      changes: { added: 0, changed: 0, unchanged: 46, removed: 0 },
      error: null,
    });
  });
});

describe('Salesforce sync: progress while it runs', () => {
  let salesforce: SalesforceTestServer;
  let gateway: TestGateway;

  beforeAll(async () => {
    salesforce = await startSalesforceServer({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      org: salesforceOrg(salesforceOpportunities(30, NOW)),
      pageSize: 10,
    });
    gateway = await startGateway({
      env: salesforceEnv(salesforce),
      salesforceClient: FAST_RETRIES,
    });
    await configure(gateway);
  });
  afterAll(async () => {
    await gateway?.stop();
    await salesforce?.close();
  });

  it('shows the deals read so far while the next page is awaited', async () => {
    // The second page of opportunities comes only after a while.
    salesforce.fail({ delayMs: 3000 }, { match: (r) => /\/query\/01g[0-9a-f]+-10$/.test(r.path) });
    const started = await gateway.request('POST', '/crm/syncs');
    expect(started.status).toBe(202);
    const id = started.body.sync.sync_id;
    const deadline = Date.now() + 10_000;
    let seen: any;
    for (;;) {
      seen = (await gateway.request('GET', `/crm/syncs/${id}`)).body.sync;
      if (seen.status !== 'running' || seen.progress.deals_read > 0 || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(seen).toMatchObject({ status: 'running', progress: { deals_read: 10 } });
    const ended = await followSync(gateway, id);
    expect(ended.body.sync).toMatchObject({ status: 'succeeded', progress: { deals_read: 30 } });
  });
});

describe('Salesforce sync and the org’s API allowance', () => {
  let salesforce: SalesforceTestServer;
  let gateway: TestGateway;

  beforeAll(async () => {
    salesforce = await startSalesforceServer({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      org: salesforceOrg(salesforceOpportunities(12, NOW)),
      apiLimit: { max: 1000, used: 797 },
    });
    gateway = await startGateway({
      env: salesforceEnv(salesforce, { SALESFORCE_API_LIMIT_PERCENT: '80' }),
      salesforceClient: FAST_RETRIES,
    });
    await configure(gateway);
  });
  afterAll(async () => {
    await gateway?.stop();
    await salesforce?.close();
  });

  it('stops before the usage Sforce-Limit-Info reports passes SALESFORCE_API_LIMIT_PERCENT, keeping nothing', async () => {
    const { ended } = await syncToEnd(gateway);
    expect(ended.body.sync.status).toBe('failed');
    expect(ended.body.sync.error).toMatch(
      /^Salesforce sync stopped before .*: the org has used 800 of its 1000 API requests of the last 24 hours, and the sync may take it to 80% \(800\) at most \(SALESFORCE_API_LIMIT_PERCENT\)$/,
    );
    expect(salesforce.apiUsed).toBe(800);
    expect(await SnapshotModel.countDocuments({ status: 'committed' })).toBe(0);
    // What is left of the allowance, for the metrics.
    const scraped = await gateway.request('GET', '/metrics');
    const metrics = parseExposition(scraped.body as string);
    expect(sampleValue(metrics, 'gateway_crm_api_requests_remaining', { window: 'daily' })).toBe(
      200,
    );
    expect(sampleValue(metrics, 'gateway_crm_api_requests_limit', { window: 'daily' })).toBe(1000);
  });
});
