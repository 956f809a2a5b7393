import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Secret } from '../../src/config';
import {
  createHubSpotClient,
  type HubSpotClient,
  type HubSpotClientOptions,
} from '../../src/crm/hubspot/hubspot-client';
import { DEAL_PROPERTIES, dealPropertiesFor } from '../../src/crm/hubspot/deal-properties';
import {
  HubSpotAuthError,
  HubSpotRequestError,
  HubSpotUnavailableError,
} from '../../src/crm/hubspot/hubspot-errors';
import type { HubSpotDeal, HubSpotPage } from '../../src/import/hubspot.types';
import { validateCrmDocuments } from '../../src/import/validate-documents';
import {
  startHubSpotServer,
  type HubSpotServerOptions,
  type HubSpotTestServer,
  type RecordedRequest,
} from '../../src/fake-crm/hubspot-server';
import {
  archivedDeals,
  BASE_TIME,
  dataset,
  deals,
  owners,
  PIPELINES,
  TOKEN,
} from './hubspot-dataset';

const SHAPES = path.join(__dirname, '../fixtures/hubspot/shapes');
const shape = (name: string): unknown => JSON.parse(readFileSync(path.join(SHAPES, name), 'utf8'));

let server: HubSpotTestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server with this data, and a client on it with fast retries (tests wait milliseconds, not seconds). */
async function setUp(
  serverOptions: Partial<HubSpotServerOptions> = {},
  clientOptions: Partial<HubSpotClientOptions> = {},
): Promise<{ hubspot: HubSpotTestServer; client: HubSpotClient }> {
  const hubspot = await startHubSpotServer({ token: TOKEN, dataset: dataset(), ...serverOptions });
  server = hubspot;
  const client = createHubSpotClient({
    baseUrl: hubspot.url,
    token: new Secret(TOKEN),
    baseDelayMs: 5,
    maxDelayMs: 50,
    searchIntervalMs: 0,
    timeoutMs: 2000,
    searchResultCap: serverOptions.searchResultCap,
    ...clientOptions,
  });
  return { hubspot, client };
}

const ids = (pages: HubSpotPage<HubSpotDeal>[]): string[] =>
  pages.flatMap((page) => page.results.map((deal) => deal.id));
const searches = (hubspot: HubSpotTestServer): RecordedRequest[] =>
  hubspot.requests.filter((request) => request.path.endsWith('/search'));
type SearchBody = {
  filterGroups: { filters: { propertyName: string; operator: string; value: string }[] }[];
  sorts: { propertyName: string }[];
  after?: string;
  limit: number;
};

describe('HubSpot client: reading', () => {
  it('reads the pipelines body as HubSpot answers it, with the Bearer token', async () => {
    const { hubspot, client } = await setUp();
    await expect(client.fetchPipelines()).resolves.toEqual({ results: PIPELINES });
    expect(hubspot.requests).toEqual([
      { method: 'GET', path: '/crm/v3/pipelines/deals', query: {}, body: undefined },
    ]);
  });

  it('reads every active owner with their teams, all pages joined into one owners body', async () => {
    const { hubspot, client } = await setUp({ dataset: dataset({ owners: owners(1203) }) });
    const body = await client.fetchOwners();
    expect(body.results).toHaveLength(1203);
    expect(body.results.some((owner) => owner.archived)).toBe(false);
    expect(body.results[1]).toMatchObject({
      id: '1002',
      email: 'owner2@example.com',
      teams: [{ id: '42', name: 'West', primary: true }],
    });
    expect(hubspot.requests.map((request) => request.query)).toEqual([
      { limit: '500', archived: 'false' },
      { limit: '500', archived: 'false', after: '1501' },
      { limit: '500', archived: 'false', after: '2001' },
    ]);
  });

  it('pages through every deal 100 at a time, asking for the import properties and each stage history', async () => {
    const { hubspot, client } = await setUp({
      dataset: dataset({ deals: [...deals(250), ...archivedDeals(['2026-05-02T00:00:00.000Z'])] }),
    });
    const pipelines = await client.fetchPipelines();
    const properties = dealPropertiesFor(pipelines);
    const pages = await client.fetchAllDeals(properties);

    expect(pages.map((page) => page.results.length)).toEqual([100, 100, 50]);
    expect(ids(pages)).toEqual(deals(250).map((deal) => deal.id));
    const listed = hubspot.requests.filter((request) => request.path === '/crm/v3/objects/deals');
    expect(listed.map((request) => request.query.after)).toEqual([undefined, '20101', '20201']);
    expect(
      listed.every(
        (request) => request.query.limit === '100' && request.query.archived === 'false',
      ),
    ).toBe(true);
    expect(listed[0]!.query.properties!.split(',')).toEqual(properties);
    expect(properties).toEqual([
      ...DEAL_PROPERTIES,
      ...[
        'appointmentscheduled',
        'contractsent',
        'closedwon',
        'closedlost',
        '7654322',
        '7654323',
      ].flatMap((stage) => [`hs_v2_date_entered_${stage}`, `hs_date_entered_${stage}`]),
    ]);
    // HubSpot returns the properties asked for (null when unset) and nothing else.
    const first = pages[0]!.results[0]!;
    expect(Object.keys(first.properties!).sort()).toEqual([...properties, 'hs_object_id'].sort());
    expect(first.properties).toMatchObject({
      deal_currency_code: 'EUR',
      hs_exchange_rate: '1.085',
      hs_date_entered_closedwon: null,
    });
    expect(first.properties).not.toHaveProperty('description');
    // The pages are what the import takes.
    expect(() =>
      validateCrmDocuments({ pipelines, owners: { results: [] }, deals: pages }),
    ).not.toThrow();
  });

  it('hands deal pages back as HubSpot answered them, a deal repeated across pages included', async () => {
    const { hubspot, client } = await setUp();
    const [first, second] = [
      shape('deals-overlapping-page-1.json'),
      shape('deals-overlapping-page-2.json'),
    ];
    hubspot.fail({ body: first }, { match: (request) => request.query.after === undefined });
    hubspot.fail({ body: second }, { match: (request) => request.query.after === '7302' });
    await expect(client.fetchAllDeals(['dealname'])).resolves.toEqual([first, second]);
  });

  it('reads archived deals, all of them or those archived since a date', async () => {
    const archived = archivedDeals([
      '2026-04-01T00:00:00.000Z',
      '2026-05-03T00:00:00.000Z',
      '2026-05-04T00:00:00.000Z',
    ]);
    const { hubspot, client } = await setUp({
      dataset: dataset({ deals: [...deals(3), ...archived] }),
    });
    const all = await client.fetchArchivedDeals();
    expect(ids(all)).toEqual(['90001', '90002', '90003']);
    expect(all[0]!.results.every((deal) => deal.archived === true)).toBe(true);
    expect(ids(await client.fetchArchivedDeals(new Date('2026-05-03T00:00:00.000Z')))).toEqual([
      '90002',
      '90003',
    ]);
    expect(hubspot.requests.every((request) => request.query.archived === 'true')).toBe(true);
  });

  it('stops with an error when HubSpot hands out the same paging cursor twice', async () => {
    const { hubspot, client } = await setUp();
    hubspot.fail({ body: { results: [], paging: { next: { after: 'x' } } } }, { times: 2 });
    await expect(client.fetchOwners()).rejects.toThrow(
      new HubSpotRequestError(null, 'GET /crm/v3/owners', 'paging.next.after "x" came twice'),
    );
  });

  it('says which call answered something that is not a page', async () => {
    const { hubspot, client } = await setUp();
    hubspot.fail({ body: { status: 'ok' } });
    await expect(client.fetchPipelines()).rejects.toThrow(
      'HubSpot rejected GET /crm/v3/pipelines/deals: the answer has no "results" array',
    );
  });
});

describe('HubSpot client: deals modified since', () => {
  it('searches on hs_lastmodifieddate, ascending, 100 a page, without listing every deal', async () => {
    const { hubspot, client } = await setUp({ dataset: dataset({ deals: deals(230) }) });
    const since = new Date(BASE_TIME + 20 * 60_000);
    const pages = await client.searchDealsModifiedSince(since, ['dealname', 'amount']);

    expect(ids(pages)).toEqual(
      deals(230)
        .slice(20)
        .map((deal) => deal.id),
    );
    expect(
      hubspot.requests.every(
        (request) => request.method === 'POST' && request.path === '/crm/v3/objects/deals/search',
      ),
    ).toBe(true);
    const bodies = searches(hubspot).map((request) => request.body as SearchBody);
    expect(bodies.map((body) => body.after)).toEqual([undefined, '100', '200']);
    expect(bodies[0]).toEqual({
      filterGroups: [
        {
          filters: [
            {
              propertyName: 'hs_lastmodifieddate',
              operator: 'GTE',
              value: String(since.getTime()),
            },
          ],
        },
      ],
      sorts: [{ propertyName: 'hs_lastmodifieddate', direction: 'ASCENDING' }],
      properties: ['dealname', 'amount', 'hs_lastmodifieddate'],
      limit: 100,
    });
    expect(pages[0]!.results[0]!.properties).toEqual({
      dealname: 'Deal 20021',
      amount: '1020',
      createdate: expect.any(String),
      hs_lastmodifieddate: new Date(since).toISOString(),
      hs_object_id: '20021',
    });
    expect(() =>
      validateCrmDocuments({
        pipelines: { results: PIPELINES },
        owners: { results: [] },
        deals: pages,
      }),
    ).not.toThrow();
  });

  it('stops at an upper bound when given one', async () => {
    const { client } = await setUp({ dataset: dataset({ deals: deals(30) }) });
    const pages = await client.searchDealsModifiedSince(
      new Date(BASE_TIME + 10 * 60_000),
      ['dealname'],
      new Date(BASE_TIME + 14 * 60_000),
    );
    expect(ids(pages)).toEqual(['20011', '20012', '20013', '20014', '20015']);
  });

  it('reads past the result cap by moving the lower bound, each deal once', async () => {
    // Timestamps in pairs, so the restart lands inside a pair and reads its first half again.
    const data = deals(450, { stepMs: 0 }).map((deal, i) => ({
      ...deal,
      properties: {
        ...deal.properties,
        hs_lastmodifieddate: new Date(
          BASE_TIME + Math.floor(i / 2) * 1000 + (i === 199 ? 1 : 0),
        ).toISOString(),
      },
    }));
    const { hubspot, client } = await setUp({
      dataset: dataset({ deals: data }),
      searchResultCap: 200,
    });
    const pages = await client.searchDealsModifiedSince(new Date(BASE_TIME), ['dealname']);

    expect(ids(pages)).toHaveLength(450);
    expect(new Set(ids(pages)).size).toBe(450);
    const bodies = searches(hubspot).map((request) => request.body as SearchBody);
    expect(bodies.every((body) => body.after === undefined || Number(body.after) < 200)).toBe(true);
    const lowerBounds = [...new Set(bodies.map((body) => body.filterGroups[0]!.filters[0]!.value))];
    expect(lowerBounds).toEqual([
      String(BASE_TIME),
      String(BASE_TIME + 99_000 + 1),
      String(BASE_TIME + 199_000),
    ]);
  });

  it('keeps the latest copy of a deal read twice', async () => {
    const { hubspot, client } = await setUp({ dataset: dataset({ deals: deals(3) }) });
    // The first page holds an older copy of 20003; the search reads it again later.
    hubspot.fail({
      body: {
        total: 3,
        results: [
          {
            id: '20003',
            properties: {
              dealname: 'stale copy',
              hs_lastmodifieddate: new Date(BASE_TIME).toISOString(),
            },
          },
        ],
        paging: { next: { after: '1' } },
      },
    });
    const pages = await client.searchDealsModifiedSince(new Date(BASE_TIME), ['dealname']);
    expect(
      pages.flatMap((page) =>
        page.results.map((deal) => `${deal.id} ${deal.properties!.dealname}`),
      ),
    ).toEqual(['20002 Deal 20002', '20003 Deal 20003']);
  });

  it('reads more deals than the cap sharing one timestamp by id order', async () => {
    const { hubspot, client } = await setUp({
      dataset: dataset({ deals: [...deals(250, { stepMs: 0 }), ...deals(5, { firstId: 30001 })] }),
      searchResultCap: 200,
    });
    const pages = await client.searchDealsModifiedSince(new Date(BASE_TIME), ['dealname']);

    expect(ids(pages).sort()).toEqual(
      [
        ...deals(250).map((deal) => deal.id),
        ...deals(5, { firstId: 30001 }).map((deal) => deal.id),
      ].sort(),
    );
    expect(new Set(ids(pages)).size).toBe(255);
    const bodies = searches(hubspot).map((request) => request.body as SearchBody);
    const tied = bodies.filter((body) => body.sorts[0]!.propertyName === 'hs_object_id');
    expect(
      tied.map((body) =>
        body.filterGroups[0]!.filters.map(
          (filter) => `${filter.propertyName} ${filter.operator} ${filter.value}`,
        ),
      ),
    ).toEqual([
      [`hs_lastmodifieddate EQ ${BASE_TIME}`],
      [`hs_lastmodifieddate EQ ${BASE_TIME}`],
      [`hs_lastmodifieddate EQ ${BASE_TIME}`, 'hs_object_id GT 20200'],
    ]);
    expect(bodies.at(-1)!.filterGroups[0]!.filters[0]).toEqual({
      propertyName: 'hs_lastmodifieddate',
      operator: 'GTE',
      value: String(BASE_TIME + 1),
    });
  });

  it('follows paging.next.after even when a search page is short of the limit', async () => {
    const { hubspot, client } = await setUp({
      dataset: dataset({ deals: deals(21, { firstId: 8401 }) }),
    });
    hubspot.fail({ body: shape('search-short-page.json') });
    const pages = await client.searchDealsModifiedSince(new Date(BASE_TIME), ['dealname']);
    expect(pages.map((page) => page.results.length)).toEqual([5, 16]);
    expect(searches(hubspot).map((request) => (request.body as SearchBody).after)).toEqual([
      undefined,
      '5',
    ]);
  });
});

describe('HubSpot client: limits and failures', () => {
  it('waits as long as a 429 Retry-After says, then goes on', async () => {
    const { hubspot, client } = await setUp();
    hubspot.fail({ status: 429, retryAfter: '0.3' });
    const started = Date.now();
    await expect(client.fetchPipelines()).resolves.toEqual({ results: PIPELINES });
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(hubspot.requests).toHaveLength(2);
  });

  it('backs off on a 429 without Retry-After', async () => {
    const { hubspot, client } = await setUp();
    hubspot.fail({ status: 429 }, { times: 2 });
    await expect(client.fetchOwners()).resolves.toMatchObject({ results: expect.any(Array) });
    expect(hubspot.requests).toHaveLength(3);
  });

  it('does not retry the daily limit', async () => {
    const { hubspot, client } = await setUp();
    hubspot.fail({ status: 429, policyName: 'DAILY' }, { times: 5 });
    await expect(client.fetchPipelines()).rejects.toThrow(
      /^HubSpot did not answer GET \/crm\/v3\/pipelines\/deals after 1 attempt; last: 429 daily limit reached/,
    );
    expect(hubspot.requests).toHaveLength(1);
  });

  it('gives up on a Retry-After longer than it may wait', async () => {
    const { hubspot, client } = await setUp({}, { maxRetryAfterMs: 1000 });
    hubspot.fail({ status: 429, retryAfter: '30' });
    await expect(client.fetchPipelines()).rejects.toThrow(
      '429 asking to retry after 30 s, more than the 1 s allowed',
    );
  });

  it('keeps inside the rolling request window from the rate-limit headers, never meeting a 429', async () => {
    const { hubspot, client } = await setUp({
      dataset: dataset({ deals: deals(700) }),
      rateLimit: { max: 3, intervalMs: 400 },
    });
    const started = Date.now();
    expect(ids(await client.fetchAllDeals(['dealname']))).toHaveLength(700);
    // 7 pages, 3 per window: two waits of one interval.
    expect(hubspot.requests).toHaveLength(7);
    expect(Date.now() - started).toBeGreaterThanOrEqual(780);
  });

  it('retries a 502 from a gateway, then reads the answer', async () => {
    const { hubspot, client } = await setUp();
    hubspot.fail({ status: 502 });
    await expect(client.fetchPipelines()).resolves.toEqual({ results: PIPELINES });
    expect(hubspot.requests).toHaveLength(2);
  });

  it('gives up after its attempts when HubSpot stays unavailable, saying so', async () => {
    const { hubspot, client } = await setUp({}, { maxAttempts: 4 });
    hubspot.fail({ status: 503 }, { times: 10 });
    const error = await client.fetchPipelines().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HubSpotUnavailableError);
    expect((error as Error).message).toBe(
      'HubSpot did not answer GET /crm/v3/pipelines/deals after 4 attempts; last: 503',
    );
    expect(hubspot.requests).toHaveLength(4);
  });

  it('times an attempt out and retries it', async () => {
    const { hubspot, client } = await setUp({}, { timeoutMs: 150 });
    hubspot.fail({ delayMs: 600 });
    await expect(client.fetchPipelines()).resolves.toEqual({ results: PIPELINES });
    expect(hubspot.requests).toHaveLength(2);
  });

  it('reports the timeout when every attempt times out', async () => {
    const { hubspot, client } = await setUp({}, { timeoutMs: 100, maxAttempts: 2 });
    hubspot.fail({ delayMs: 400 }, { times: 2 });
    await expect(client.fetchPipelines()).rejects.toThrow(
      'HubSpot did not answer GET /crm/v3/pipelines/deals after 2 attempts; last: no answer within 100 ms',
    );
  });

  it('retries a connection reset', async () => {
    const { hubspot, client } = await setUp();
    hubspot.fail({ reset: true }, { times: 2 });
    await expect(client.fetchPipelines()).resolves.toEqual({ results: PIPELINES });
    expect(hubspot.requests).toHaveLength(3);
  });

  it('reports a network error when nothing listens', async () => {
    const { hubspot } = await setUp();
    await hubspot.close();
    server = undefined;
    const client = createHubSpotClient({
      baseUrl: hubspot.url,
      token: new Secret(TOKEN),
      maxAttempts: 2,
      baseDelayMs: 5,
    });
    await expect(client.fetchPipelines()).rejects.toThrow(
      'HubSpot did not answer GET /crm/v3/pipelines/deals after 2 attempts; last: network error (ECONNREFUSED)',
    );
  });

  it('stops at once on a refused token, without the token in the message', async () => {
    const { hubspot } = await setUp();
    const wrong = 'pat-na1-00000000-0000-0000-0000-000000000000';
    const client = createHubSpotClient({
      baseUrl: hubspot.url,
      token: new Secret(wrong),
      baseDelayMs: 5,
    });
    const error = await client.fetchOwners().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HubSpotAuthError);
    expect((error as HubSpotAuthError).status).toBe(401);
    expect((error as Error).message).toMatch(
      /^HubSpot refused the token \(401: INVALID_AUTHENTICATION Authentication credentials not found\..*\) on GET \/crm\/v3\/owners; check HUBSPOT_TOKEN/,
    );
    expect((error as Error).message).not.toContain(wrong);
    expect(JSON.stringify(error)).not.toContain(wrong);
    expect(hubspot.requests).toHaveLength(1);
  });

  it('treats a 403 (a scope the app lacks) as a refused token, not retried', async () => {
    const { hubspot, client } = await setUp();
    hubspot.fail({ status: 403 }, { times: 3 });
    await expect(client.fetchAllDeals(['dealname'])).rejects.toBeInstanceOf(HubSpotAuthError);
    expect(hubspot.requests).toHaveLength(1);
  });

  it('does not retry a request HubSpot rejects as invalid', async () => {
    const { hubspot, client } = await setUp();
    hubspot.fail({ status: 400 }, { times: 3 });
    await expect(
      client.searchDealsModifiedSince(new Date(BASE_TIME), ['dealname']),
    ).rejects.toThrow(
      'HubSpot rejected POST /crm/v3/objects/deals/search (400): VALIDATION_ERROR Fault 400 asked for by the test',
    );
    expect(hubspot.requests).toHaveLength(1);
  });
});
