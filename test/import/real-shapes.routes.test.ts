/**
 * POST /crm/imports on the shapes real HubSpot answers have (test/fixtures/hubspot/shapes/): each
 * case is read right, refused with a message that says what to send, or reported in `skipped`.
 */
import { opportunitiesAt } from '../../src/import/snapshot-writer';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { startGateway, TestGateway } from '../helpers/gateway';
import { fixture } from './fixtures';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(async () => {
  await gateway?.stop();
});

/**
 * An import body: the shapes pipelines and owners with the given deal pages. Each case is its own
 * picture, so `force` lets it replace the last one past the guard (which its own test covers).
 */
function body(deals: unknown, extra: Record<string, unknown> = {}) {
  return {
    pipelines: fixture('shapes/pipelines.json'),
    owners: fixture('shapes/owners.json'),
    deals,
    force: true,
    ...extra,
  };
}

async function importBody(payload: unknown) {
  return gateway.request('POST', '/crm/imports', { body: payload });
}

/** dealId → { amount, stageId, outcome } of a snapshot's opportunities. */
async function opportunities(snapshotId: string) {
  const snapshot = await SnapshotModel.findById(snapshotId, { seq: 1 }).lean();
  const rows = await opportunitiesAt(snapshot!.seq);
  return Object.fromEntries(
    rows.map((o) => [
      o.dealId,
      {
        amount: o.amount,
        stageId: o.stageId,
        outcome: o.outcome,
        memberId: o.memberId,
        closedAt: o.closedAt,
      },
    ]),
  );
}

async function committedCount() {
  return SnapshotModel.countDocuments({ status: 'committed' });
}

async function setCurrency(currency: string) {
  expect(
    (await gateway.request('POST', '/settings/currencies', { body: { currency } })).status,
  ).toBe(200);
}

async function expectRefused(payload: unknown, field: string, message: string) {
  const before = await committedCount();
  const response = await importBody(payload);
  expect(response.status).toBe(400);
  expect(response.body).toMatchObject({ success: false, statusCode: 400 });
  expect(response.body.errors).toContainEqual({ field, message });
  expect(response.body.message).toBe(`Invalid CRM import: ${message}; nothing was imported`);
  expect(await committedCount()).toBe(before);
}

describe('deals in several currencies (deal_currency_code)', () => {
  it('with no currency configured and no home_currency, skips every deal that names a currency, saying what to send', async () => {
    // No deal usable: the guard refuses, naming the first reason, and nothing is committed.
    const refused = await importBody(
      body(fixture('shapes/deals-currencies.json'), { force: undefined }),
    );
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain(
      'No deal is usable: all 2 deals were skipped (deal 6201: deal is in EUR, and no currency is configured',
    );
    expect(await committedCount()).toBe(0);
    const response = await importBody(body(fixture('shapes/deals-currencies.json')));
    expect(response.status).toBe(200);
    expect(response.body.counts.deals).toBe(0);
    // What a currency change would bring in: one deal each (the tie broken by name).
    expect(response.body.skipped_for_currency).toEqual([
      { currency: 'EUR', deals: 1 },
      { currency: 'USD', deals: 1 },
    ]);
    expect(response.body.message).toMatch(
      /\. 1 deal in EUR was skipped for their currency: set the account's currency to EUR \(POST \/settings\/currencies \{"currency": "EUR"\}\) and import again to count them$/,
    );
    expect(response.body.skipped).toEqual(
      ['6201', '6202'].map((id) => ({
        id,
        reason: `deal is in ${id === '6201' ? 'EUR' : 'USD'}, and no currency is configured to count it in: set the account's currency to ${id === '6201' ? 'EUR' : 'USD'} (POST /settings/currencies {"currency": "${id === '6201' ? 'EUR' : 'USD'}"}, GraphQL setCurrency) and import again, or send home_currency (the portal's companyCurrency from HubSpot GET /account-info/v3/details); left out of every metric`,
      })),
    );
  });

  it('never sums a EUR deal as USD: without home_currency the EUR deal is skipped with the reason', async () => {
    await setCurrency('usd');
    const response = await importBody(body(fixture('shapes/deals-currencies.json')));
    expect(response.status).toBe(200);
    expect(response.body.counts.deals).toBe(1);
    expect(response.body.skipped).toEqual([
      {
        id: '6201',
        reason:
          'deal is in EUR, not the configured USD: set the account\'s currency to EUR (POST /settings/currencies {"currency": "EUR"}, GraphQL setCurrency) and import again to count deals in EUR, or send home_currency (the portal\'s companyCurrency from HubSpot GET /account-info/v3/details): its amount_in_home_currency counts when that is USD; left out of every metric',
      },
    ]);
    expect(await opportunities(response.body.snapshot_id)).toEqual({
      '6202': expect.objectContaining({ amount: 4000, outcome: 'won' }),
    });
  });

  it('counts the EUR deal with its amount_in_home_currency when the portal home currency is the configured one', async () => {
    const response = await importBody(
      body(fixture('shapes/deals-currencies.json'), { home_currency: 'usd' }),
    );
    expect(response.status).toBe(200);
    expect(response.body.counts.deals).toBe(2);
    expect(response.body.skipped).toEqual([]);
    const rows = await opportunities(response.body.snapshot_id);
    expect(rows['6201'].amount).toBe(10850);
    expect(rows['6202'].amount).toBe(4000);
  });

  it('skips the USD deal when the configured currency is EUR and the home currency is USD', async () => {
    await setCurrency('EUR');
    const response = await importBody(
      body(fixture('shapes/deals-currencies.json'), { home_currency: 'USD' }),
    );
    expect(response.status).toBe(200);
    expect(response.body.skipped).toEqual([
      {
        id: '6202',
        reason:
          'deal is in USD, not the configured EUR, and the portal\'s home currency is USD, not EUR either: set the account\'s currency to USD (POST /settings/currencies {"currency": "USD"}, GraphQL setCurrency) and import again to count deals in USD; left out of every metric',
      },
    ]);
    expect(await opportunities(response.body.snapshot_id)).toEqual({
      '6201': expect.objectContaining({ amount: 10000 }),
    });
  });

  it('takes homeCurrency on GraphQL the same way', async () => {
    const query = `mutation Import($input: CrmImportInput!) { importCrmData(input: $input) { snapshotId counts { deals } skipped { id reason } } }`;
    const { pipelines, owners, deals } = body(fixture('shapes/deals-currencies.json'));
    const response = await gateway.graphql(query, {
      input: { pipelines, owners, deals, homeCurrency: 'EUR' },
    });
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.importCrmData).toMatchObject({ counts: { deals: 2 }, skipped: [] });
    const rows = await opportunities(response.body.data.importCrmData.snapshotId);
    // Configured EUR, home EUR: the USD deal counts with its amount_in_home_currency.
    expect([rows['6201'].amount, rows['6202'].amount]).toEqual([10000, 4000]);
  });

  it('answers 400 for a home_currency that is not a currency code', async () => {
    await expectRefused(
      body(fixture('shapes/deals-currencies.json'), { home_currency: 'euro' }),
      'home_currency',
      'home_currency must be an ISO 4217 code such as EUR or USD (HubSpot\'s companyCurrency), got the string "euro"',
    );
  });
});

describe('a deals page fetched without `pipeline` among its properties', () => {
  it('answers 409 naming the property and how to request it, and commits nothing', async () => {
    const page = fixture('shapes/deals-page-without-pipeline.json');
    // The last page of such a list (the first one alone is refused for its unfollowed paging.next).
    delete page.paging;
    const before = await committedCount();
    const response = await importBody(body(page, { force: undefined }));
    expect(response.status).toBe(409);
    expect(response.body.message).toContain(
      'No deal is usable: no deal has the property `pipeline`: request it with `properties=',
    );
    expect(response.body.message).toContain('on GET /crm/v3/objects/deals');
    expect(await committedCount()).toBe(before);
  });
});

describe('overlapping deal pages', () => {
  it('keeps the more complete copy of a deal modified at the same time, whatever the page order', async () => {
    await setCurrency('EUR');
    const pages = [
      fixture('shapes/deals-overlapping-page-1.json'),
      fixture('shapes/deals-overlapping-page-2.json'),
    ];
    const response = await importBody(body(pages));
    expect(response.status).toBe(200);
    expect(response.body.skipped).toEqual([
      { id: '7301', reason: 'deal has no pipeline; left out of every metric' },
      {
        id: '7302',
        reason:
          'deal appears twice in the deal pages; same hs_lastmodifieddate, the copy with the most properties kept',
      },
    ]);
    const rows = await opportunities(response.body.snapshot_id);
    expect(Object.keys(rows).sort()).toEqual(['7302', '7303']);
    // The page-2 copy: it has the pipeline and the owner the page-1 copy lacks.
    expect(rows['7302'].memberId).not.toBeNull();

    const reversed = await importBody(body([...pages].reverse()));
    expect(reversed.status).toBe(200);
    // The same data after normalisation: the import is recognised and nothing is written.
    expect(reversed.body.snapshot_id).toBe(response.body.snapshot_id);
  });

  it('keeps the copy modified last even when an earlier copy has more properties', async () => {
    const [first, second] = [
      fixture('shapes/deals-overlapping-page-1.json'),
      fixture('shapes/deals-overlapping-page-2.json'),
    ];
    // The first page's copy of 7302 was read after a change that moved the deal to the next stage.
    Object.assign(first.results[1].properties, {
      pipeline: 'default',
      dealstage: 'qualifiedtobuy',
      hs_lastmodifieddate: '2026-05-03T08:00:00.000Z',
    });
    const response = await importBody(body([first, second]));
    expect(response.status).toBe(200);
    expect(response.body.skipped).toContainEqual({
      id: '7302',
      reason:
        'deal appears twice in the deal pages; the copy with the latest hs_lastmodifieddate kept',
    });
    expect((await opportunities(response.body.snapshot_id))['7302'].stageId).toBe('qualifiedtobuy');
  });
});

describe('pages whose paging.next was not followed', () => {
  it('refuses a search page with total 21, paging.next.after and 5 results, writing nothing', async () => {
    await expectRefused(
      body(fixture('shapes/search-short-page.json')),
      'deals.paging.next.after',
      'deals.paging.next.after is "5" but no page follows it: the only deal page has a paging.next, so the deals past it are missing ' +
        '(its total is 21 deals; 5 were sent); send every page, following paging.next.after until a page has none',
    );
  });

  it('refuses pages that all have a paging.next, naming the last one', async () => {
    const first = fixture('shapes/deals-overlapping-page-1.json');
    await expectRefused(
      body([first, first]),
      'deals[1].paging.next.after',
      'deals[1].paging.next.after is "7302" but no page follows it: every one of the 2 deal pages has a paging.next, so the deals past it are missing; ' +
        'send every page, following paging.next.after until a page has none',
    );
  });
});

describe('bodies of HubSpot legacy APIs', () => {
  const currentDeals = () => fixture('shapes/deals-overlapping-page-2.json');

  it('refuses v1 deals (GET /deals/v1/deal/paged) naming the v3 request, one page or in an array', async () => {
    const message = (field: string) =>
      `${field} is a legacy v1 deals body (GET /deals/v1/deal/paged: {deals, hasMore, offset}), which the import does not read: send the body of GET /crm/v3/objects/deals instead`;
    await expectRefused(
      body(fixture('shapes/legacy-v1-deals-paged.json')),
      'deals',
      message('deals'),
    );
    await expectRefused(
      body([currentDeals(), fixture('shapes/legacy-v1-deals-paged.json')]),
      'deals[1]',
      message('deals[1]'),
    );
  });

  it('refuses v1 pipelines (GET /crm-pipelines/v1/pipelines/deals) naming the v3 request', async () => {
    await expectRefused(
      { ...body(currentDeals()), pipelines: fixture('shapes/legacy-v1-pipelines.json') },
      'pipelines',
      'pipelines is a legacy v1 pipelines body (GET /crm-pipelines/v1/pipelines/deals: pipelineId and stageId instead of id), which the import does not read: send the body of GET /crm/v3/pipelines/deals instead',
    );
  });

  it('refuses v2 owners (GET /owners/v2/owners) as owners, and does not take them for deal pages', async () => {
    const message = (field: string) =>
      `${field} is a legacy v2 owners body (GET /owners/v2/owners: an array of owners with ownerId), which the import does not read: send the body of GET /crm/v3/owners instead`;
    await expectRefused(
      { ...body(currentDeals()), owners: fixture('shapes/owners-v2.json') },
      'owners',
      message('owners'),
    );
    await expectRefused(body(fixture('shapes/owners-v2.json')), 'deals', message('deals'));
  });
});

describe('closed flags (hs_is_closed_won, hs_is_closed_lost)', () => {
  it("places a stage-less deal that HubSpot marks lost in the pipeline's only lost stage", async () => {
    const response = await importBody(body(fixture('shapes/deals-stageless-closed-lost.json')));
    expect(response.status).toBe(200);
    expect(response.body.counts.deals).toBe(2);
    const placed =
      'hs_is_closed_lost is "true": placed in "closedlost", the only lost stage of pipeline "default"; the deal is kept';
    expect(response.body.skipped).toEqual([
      { id: '9601', reason: `deal has no stage; ${placed}` },
      { id: '9602', reason: `deal has no stage; ${placed}` },
    ]);
    const rows = await opportunities(response.body.snapshot_id);
    expect(rows['9601']).toMatchObject({
      stageId: 'closedlost',
      outcome: 'lost',
      amount: 2200,
      closedAt: new Date('2026-02-27T00:00:00.000Z'),
    });
    expect(rows['9602']).toMatchObject({ stageId: 'closedlost', outcome: 'lost', amount: 0 });
  });

  it('takes won or lost from the deal when its closed stage has no usable probability', async () => {
    const pipelines = fixture('shapes/pipelines.json');
    // A custom closed stage without a probability: its metadata cannot tell won from lost.
    pipelines.results[0].stages.push({
      id: 'closedcustom',
      label: 'Closed (custom)',
      displayOrder: 7,
      metadata: { isClosed: 'true' },
    });
    const deal = (id: string, won: string) => ({
      id,
      properties: {
        dealname: id,
        amount: '100',
        pipeline: 'default',
        dealstage: 'closedcustom',
        hs_is_closed: 'true',
        hs_is_closed_won: won,
        hs_is_closed_lost: won === 'true' ? 'false' : 'true',
      },
    });
    const response = await importBody({
      ...body({ results: [deal('9701', 'true'), deal('9702', 'false')] }),
      pipelines,
    });
    expect(response.status).toBe(200);
    const rows = await opportunities(response.body.snapshot_id);
    expect(rows['9701'].outcome).toBe('won');
    expect(rows['9702'].outcome).toBe('lost');
  });
});
