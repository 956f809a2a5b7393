import { Secret } from '../../src/config';
import type { CrmDealPage, CrmRead } from '../../src/crm/connector';
import {
  createSalesforceClient,
  type SalesforceClient,
} from '../../src/crm/salesforce/salesforce-client';
import { salesforceConnector } from '../../src/crm/salesforce/salesforce-connector';
import {
  SalesforceAuthError,
  SalesforceLimitError,
  SalesforceRequestError,
  SalesforceUnavailableError,
} from '../../src/crm/salesforce/salesforce-errors';
import type { SalesforceHttpOptions } from '../../src/crm/salesforce/salesforce-http';
import { normaliseCrmData } from '../../src/import/normalise';
import { validateCrmDocuments } from '../../src/import/validate-documents';
import {
  startSalesforceServer,
  type RecordedRequest,
  type SalesforceServerOptions,
  type SalesforceTestServer,
} from '../helpers/salesforce-server';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  NEW_BUSINESS,
  RENEWAL,
  salesforceOpportunities,
  salesforceOrg,
  USERS,
} from '../sync/salesforce-dataset';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);

let server: SalesforceTestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setUp(
  serverOptions: Partial<SalesforceServerOptions> = {},
  clientOptions: Partial<SalesforceHttpOptions> = {},
): Promise<{ salesforce: SalesforceTestServer; client: SalesforceClient }> {
  const salesforce = await startSalesforceServer({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    org: salesforceOrg(salesforceOpportunities(12, NOW)),
    ...serverOptions,
  });
  server = salesforce;
  const client = createSalesforceClient({
    loginUrl: salesforce.url,
    clientId: CLIENT_ID,
    clientSecret: new Secret(CLIENT_SECRET),
    apiVersion: 'v62.0',
    baseDelayMs: 5,
    maxDelayMs: 20,
    timeoutMs: 2000,
    ...clientOptions,
  });
  return { salesforce, client };
}

async function pagesOf(read: CrmRead): Promise<CrmDealPage[]> {
  const pages: CrmDealPage[] = [];
  for await (const page of read.deals) pages.push(page);
  return pages;
}

const queries = (salesforce: SalesforceTestServer, object: string): RecordedRequest[] =>
  salesforce.requests.filter(
    (r) =>
      /\/query(All)?$/.test(r.path) &&
      typeof r.body === 'string' &&
      new RegExp(`FROM ${object}( |$)`).test((r.body as string).replace(/\([^()]*\)/g, '')),
  );
const tokenRequests = (salesforce: SalesforceTestServer) =>
  salesforce.requests.filter((r) => r.path === '/services/oauth2/token');

describe('Salesforce connector: reading an org', () => {
  it('asks for a token with the client-credentials grant and reads the org as the import takes it', async () => {
    const { salesforce, client } = await setUp();
    const read = await salesforceConnector(client).read(null);
    const pages = await pagesOf(read);

    expect(tokenRequests(salesforce)).toEqual([
      expect.objectContaining({
        method: 'POST',
        body: {
          grant_type: 'client_credentials',
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
        },
      }),
    ]);
    // No record types: one pipeline, `default`, with every stage in SortOrder.
    expect(read.pipelines.results.map((p) => p.id)).toEqual(['default']);
    expect(read.pipelines.results[0]!.stages.map((s) => [s.id, s.metadata])).toEqual([
      ['Prospecting', { isClosed: 'false', probability: '0.1' }],
      ['Qualification', { isClosed: 'false', probability: '0.2' }],
      ['Proposal/Price Quote', { isClosed: 'false', probability: '0.75' }],
      ['Negotiation/Review', { isClosed: 'false', probability: '0.9' }],
      ['Closed Won', { isClosed: 'true', probability: '1' }],
      ['Closed Lost', { isClosed: 'true', probability: '0' }],
    ]);
    expect(read.homeCurrency).toBe('EUR');
    expect(read.owners.results.map((o) => [o.id, o.email, o.archived, o.teams])).toEqual(
      USERS.map((u) => [
        u.Id,
        u.Email,
        !u.IsActive,
        u.UserRoleId === null
          ? []
          : [
              {
                id: u.UserRoleId,
                name: u.UserRoleId.endsWith('1') ? 'EMEA Sales' : 'Americas Sales',
                primary: true,
              },
            ],
      ]),
    );
    const deals = pages.flatMap((p) => p.results);
    expect(deals).toHaveLength(12);
    const first = deals[0]!;
    const stored = salesforce.org.opportunities[0]!;
    expect(first).toMatchObject({
      id: stored.Id,
      archived: false,
      properties: {
        dealname: stored.Name,
        amount: String(stored.Amount),
        dealstage: stored.StageName,
        pipeline: 'default',
        closedate: stored.CloseDate,
        hubspot_owner_id: stored.OwnerId,
        deal_currency_code: 'EUR',
        hs_lastmodifieddate: stored.SystemModstamp,
        hs_manual_forecast_category: stored.ForecastCategoryName,
      },
    });
    // The latest modification on each page: where the next sync may start.
    expect(pages.at(-1)!.latestModifiedAt).toBe(
      Math.max(...salesforce.org.opportunities.map((o) => Date.parse(o.SystemModstamp))),
    );
    // The documents the import takes, and the deals it counts.
    const documents = {
      pipelines: read.pipelines,
      owners: read.owners,
      deals: pages.map((p) => ({ results: p.results })),
    };
    expect(() => validateCrmDocuments(documents)).not.toThrow();
    const data = normaliseCrmData(documents, { currencies: { configured: 'EUR', home: 'EUR' } });
    expect(data.deals).toHaveLength(12);
    expect(data.skipped).toEqual([
      {
        id: USERS[3]!.Id,
        reason: 'owner is archived; not created as a member, its deals keep no member',
      },
    ]);
  });

  it('maps sales processes to pipelines through record types, with the stages each allows', async () => {
    const options = { recordTypes: true, multiCurrency: true };
    const opportunities = salesforceOpportunities(8, NOW, options);
    // One opportunity from before record types: the master record type, pipeline `default`.
    opportunities[0]!.RecordTypeId = null;
    const { client } = await setUp({ org: salesforceOrg(opportunities, options) });
    const read = await salesforceConnector(client).read(null);
    const deals = (await pagesOf(read)).flatMap((p) => p.results);

    expect(read.pipelines.results.map((p) => [p.id, p.label, p.stages.map((s) => s.id)])).toEqual([
      [
        NEW_BUSINESS,
        'New Business Process',
        [
          'Prospecting',
          'Qualification',
          'Proposal/Price Quote',
          'Negotiation/Review',
          'Closed Won',
          'Closed Lost',
        ],
      ],
      [RENEWAL, 'Renewal Process', ['Negotiation/Review', 'Closed Won', 'Closed Lost']],
      ['default', 'Opportunities', expect.any(Array)],
    ]);
    expect(deals.map((d) => d.properties!.pipeline)).toEqual([
      'default',
      NEW_BUSINESS,
      NEW_BUSINESS,
      RENEWAL,
      NEW_BUSINESS,
      NEW_BUSINESS,
      NEW_BUSINESS,
      RENEWAL,
    ]);
    // A USD opportunity: its amount in the corporate currency by the currency's rate.
    const usd = deals[4]!;
    expect(usd.properties).toMatchObject({
      deal_currency_code: 'USD',
      amount: String(opportunities[4]!.Amount),
      amount_in_home_currency: String(Math.round((opportunities[4]!.Amount! / 1.25) * 100) / 100),
    });
    expect(read.homeCurrency).toBe('EUR');
  });

  it('carries each opportunity’s stage history from OpportunityHistory', async () => {
    const opportunities = salesforceOpportunities(1, NOW);
    const o = opportunities[0]!;
    // In Prospecting, then Qualification, back to Prospecting, then an amount change (a history
    // row in the same stage), then Qualification again.
    o.StageName = 'Qualification';
    o.history = [
      { StageName: 'Prospecting', CreatedDate: '2026-10-01T09:00:00.000Z' },
      { StageName: 'Qualification', CreatedDate: '2026-10-05T09:00:00.000Z' },
      { StageName: 'Prospecting', CreatedDate: '2026-10-07T09:00:00.000Z' },
      { StageName: 'Prospecting', CreatedDate: '2026-10-08T09:00:00.000Z', Amount: 5 },
      { StageName: 'Qualification', CreatedDate: '2026-10-09T09:00:00.000Z' },
    ];
    const { client } = await setUp({ org: salesforceOrg(opportunities), childPageSize: 2 });
    const [deal] = (await pagesOf(await salesforceConnector(client).read(null))).flatMap(
      (p) => p.results,
    );
    expect(deal!.propertiesWithHistory).toEqual({
      dealstage: [
        { value: 'Qualification', timestamp: '2026-10-09T09:00:00.000Z' },
        { value: 'Prospecting', timestamp: '2026-10-07T09:00:00.000Z' },
        { value: 'Qualification', timestamp: '2026-10-05T09:00:00.000Z' },
        { value: 'Prospecting', timestamp: '2026-10-01T09:00:00.000Z' },
      ],
    });
    expect(deal!.properties).toMatchObject({
      hs_date_entered_Prospecting: '2026-10-07T09:00:00.000Z',
      hs_date_entered_Qualification: '2026-10-09T09:00:00.000Z',
      hs_v2_date_entered_Qualification: '2026-10-09T09:00:00.000Z',
    });
  });

  it('reads changes and deletions since a time through queryAll, ordered by SystemModstamp and Id', async () => {
    const opportunities = salesforceOpportunities(10, NOW);
    const { salesforce, client } = await setUp({ org: salesforceOrg(opportunities) });
    const since = new Date(Date.parse(opportunities[6]!.SystemModstamp) + 400);
    opportunities[2]!.IsDeleted = true;
    opportunities[2]!.SystemModstamp = new Date(NOW).toISOString();
    const read = await salesforceConnector(client).read(since);
    const deals = (await pagesOf(read)).flatMap((p) => p.results);

    const [query] = queries(salesforce, 'Opportunity');
    expect(query!.path).toBe('/services/data/v62.0/queryAll');
    // To the second, rounded down: the opportunity stamped at that second comes too.
    expect(query!.body).toContain(
      `WHERE SystemModstamp >= ${opportunities[6]!.SystemModstamp.replace('.000Z', 'Z')} ORDER BY SystemModstamp, Id`,
    );
    expect(deals.map((d) => [d.id, d.archived])).toEqual([
      [opportunities[6]!.Id, false],
      [opportunities[7]!.Id, false],
      [opportunities[8]!.Id, false],
      [opportunities[9]!.Id, false],
      [opportunities[2]!.Id, true],
    ]);
  });

  it('follows nextRecordsUrl page by page, reading each page only when asked for it', async () => {
    const { salesforce, client } = await setUp({
      org: salesforceOrg(salesforceOpportunities(25, NOW)),
      pageSize: 10,
    });
    const read = await salesforceConnector(client).read(null);
    const iterator = read.deals[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value.results).toHaveLength(10);
    const more = () => salesforce.requests.filter((r) => /\/query\/01g/.test(r.path));
    expect(more()).toHaveLength(0);
    const rest: number[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next())
      rest.push(next.value.results.length);
    expect(rest).toEqual([10, 5]);
    expect(more().map((r) => r.path.replace(/01g[0-9a-f]+/, 'L'))).toEqual([
      '/services/data/v62.0/query/L-10',
      '/services/data/v62.0/query/L-20',
    ]);
  });
});

describe('Salesforce client: faults and limits', () => {
  it('fetches the token again once when the session expires mid-read, and goes on', async () => {
    const { salesforce, client } = await setUp({
      org: salesforceOrg(salesforceOpportunities(25, NOW)),
      pageSize: 10,
    });
    salesforce.fail({ expireSessions: true }, { match: (r) => /\/query\/01g/.test(r.path) });
    const deals = (await pagesOf(await salesforceConnector(client).read(null))).flatMap(
      (p) => p.results,
    );
    expect(deals).toHaveLength(25);
    expect(tokenRequests(salesforce)).toHaveLength(2);
  });

  it('stops when a fresh token is refused too, naming the refusal without any credential', async () => {
    const { salesforce, client } = await setUp();
    salesforce.fail(
      { expireSessions: true },
      { times: 3, match: (r) => r.path !== '/services/oauth2/token' },
    );
    const error = await salesforceConnector(client)
      .read(null)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SalesforceAuthError);
    expect((error as Error).message).toMatch(
      /^Salesforce refused the credentials \(401: INVALID_SESSION_ID/,
    );
    expect(tokenRequests(salesforce)).toHaveLength(2);
  });

  it('refuses wrong client credentials at once, without the secret in the message', async () => {
    const { salesforce } = await setUp();
    const wrong = 'not-the-secret-7781';
    const client = createSalesforceClient({
      loginUrl: salesforce.url,
      clientId: CLIENT_ID,
      clientSecret: new Secret(wrong),
      apiVersion: 'v62.0',
      baseDelayMs: 5,
    });
    const error = await salesforceConnector(client)
      .read(null)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SalesforceAuthError);
    expect((error as Error).message).toBe(
      'Salesforce refused the credentials (400: invalid_client: invalid client credentials) on POST /services/oauth2/token; check SALESFORCE_CLIENT_ID, SALESFORCE_CLIENT_SECRET, SALESFORCE_LOGIN_URL and the permissions of the integration user (docs/crm-sync.md)',
    );
    expect(JSON.stringify(error)).not.toContain(wrong);
    expect(tokenRequests(salesforce)).toHaveLength(1);
  });

  it('cuts the access token and the secret out of an error Salesforce echoes, before shortening it', async () => {
    const { salesforce, client } = await setUp();
    // The token lies across the point where the message is cut: redacted first, none of it stays.
    salesforce.fail(
      {
        status: 400,
        errorCode: 'MALFORMED_QUERY',
        message: (request) => `${'x'.repeat(440)} ${request.authorization} ${CLIENT_SECRET}`,
      },
      { match: (r) => r.path.endsWith('/describe') },
    );
    const error = await salesforceConnector(client)
      .read(null)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SalesforceRequestError);
    const sent = String(salesforce.requests.at(-1)!.authorization).slice('Bearer '.length);
    const message = (error as Error).message;
    expect(message).toBe(
      `Salesforce rejected GET /services/data/v62.0/sobjects/Opportunity/describe (400): MALFORMED_QUERY: ${'x'.repeat(440)} Bearer [redacted] [redacted]`,
    );
    expect(message).not.toContain(sent.slice(0, 20));
  });

  it('retries REQUEST_LIMIT_EXCEEDED of concurrent requests and a 503, then goes on', async () => {
    const { salesforce, client } = await setUp();
    salesforce.fail(
      {
        status: 403,
        errorCode: 'REQUEST_LIMIT_EXCEEDED',
        message: 'ConcurrentPerOrgLongTxn Limit exceeded.',
        retryAfter: '0.05',
      },
      { match: (r) => r.path.endsWith('/describe') },
    );
    salesforce.fail({ status: 503 }, { match: (r) => r.path.endsWith('/describe') });
    await expect(salesforceConnector(client).read(null)).resolves.toBeDefined();
    expect(salesforce.requests.filter((r) => r.path.endsWith('/describe'))).toHaveLength(3);
  });

  it('gives up after its attempts, naming the last failure', async () => {
    const { salesforce, client } = await setUp({}, { maxAttempts: 3 });
    salesforce.fail({ status: 503 }, { times: 5, match: (r) => r.path.endsWith('/describe') });
    const error = await salesforceConnector(client)
      .read(null)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SalesforceUnavailableError);
    expect((error as Error).message).toBe(
      'Salesforce did not answer GET /services/data/v62.0/sobjects/Opportunity/describe after 3 attempts; last: 503',
    );
  });

  it('does not retry the spent daily allowance', async () => {
    const { salesforce, client } = await setUp(
      { apiLimit: { max: 100, used: 100 } },
      { apiLimitPercent: 100 },
    );
    const error = await salesforceConnector(client)
      .read(null)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SalesforceLimitError);
    expect((error as Error).message).toMatch(
      /the org's daily API allowance is spent \(REQUEST_LIMIT_EXCEEDED: TotalRequests Limit exceeded\.\)/,
    );
    expect(salesforce.requests.filter((r) => r.path.endsWith('/describe'))).toHaveLength(1);
  });

  it('stops before the org’s usage passes the share it may take (Sforce-Limit-Info)', async () => {
    // 1000 a day, 790 used: at 80 % the sync may make 10 requests.
    const { salesforce, client } = await setUp(
      {
        org: salesforceOrg(salesforceOpportunities(60, NOW)),
        pageSize: 5,
        apiLimit: { max: 1000, used: 790 },
      },
      { apiLimitPercent: 80 },
    );
    const error = await pagesOf(await salesforceConnector(client).read(null)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SalesforceLimitError);
    expect((error as Error).message).toMatch(
      /^Salesforce sync stopped before GET \/services\/data\/v62\.0\/query \(Opportunity\): the org has used 800 of its 1000 API requests of the last 24 hours, and the sync may take it to 80% \(800\) at most \(SALESFORCE_API_LIMIT_PERCENT\)$/,
    );
    expect(salesforce.apiUsed).toBe(800);
  });

  it('does not follow a redirect to another origin', async () => {
    const { salesforce, client } = await setUp();
    salesforce.fail(
      { redirect: 'http://127.0.0.2:9/services/data/v62.0/sobjects/Opportunity/describe' },
      { match: (r) => r.path.endsWith('/describe') },
    );
    const error = await salesforceConnector(client)
      .read(null)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SalesforceRequestError);
    expect((error as Error).message).toBe(
      `Salesforce rejected GET /services/data/v62.0/sobjects/Opportunity/describe (302): a redirect from ${salesforce.url} to http://127.0.0.2:9, which is not followed`,
    );
  });

  it('refuses a nextRecordsUrl that leaves the data API', async () => {
    const { salesforce, client } = await setUp();
    salesforce.fail(
      { body: { totalSize: 5, done: false, nextRecordsUrl: 'http://127.0.0.2:9/x', records: [] } },
      { match: (r) => queries(salesforce, 'Opportunity').includes(r) },
    );
    const error = await pagesOf(await salesforceConnector(client).read(null)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SalesforceRequestError);
    expect((error as Error).message).toMatch(
      /nextRecordsUrl is not a path under \/services\/data\/v62\.0$/,
    );
  });
});
