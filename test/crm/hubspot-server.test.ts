// The test server's own contract where the client tests do not reach it: HubSpot's answers to a
// caller that is not the client (a missing token, default properties, the cap, list links).
import { startHubSpotServer, type HubSpotTestServer } from '../../src/fake-crm/hubspot-server';
import { dataset, deals, TOKEN } from './hubspot-dataset';

let server: HubSpotTestServer;

beforeEach(async () => {
  server = await startHubSpotServer({
    token: TOKEN,
    dataset: dataset({ deals: deals(250) }),
    searchResultCap: 200,
  });
});

afterEach(() => server.close());

const auth = { authorization: `Bearer ${TOKEN}` };

describe('HubSpot test server', () => {
  it('answers 401 with HubSpot error body without a valid token', async () => {
    const response = await fetch(`${server.url}/crm/v3/owners`, {
      headers: { authorization: 'Bearer nope' },
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      status: 'error',
      message: expect.stringContaining('Authentication credentials not found'),
      correlationId: expect.any(String),
      category: 'INVALID_AUTHENTICATION',
    });
  });

  it('returns the default deal properties when none are named, and a link to the next page', async () => {
    const body = (await (
      await fetch(`${server.url}/crm/v3/objects/deals?limit=2`, { headers: auth })
    ).json()) as {
      results: { properties: Record<string, unknown> }[];
      paging: { next: unknown };
    };
    expect(Object.keys(body.results[0].properties).sort()).toEqual(
      [
        'amount',
        'closedate',
        'createdate',
        'dealname',
        'dealstage',
        'hs_lastmodifieddate',
        'hs_object_id',
        'pipeline',
      ].sort(),
    );
    expect(body.paging.next).toEqual({
      after: '20003',
      link: `${server.url}/crm/v3/objects/deals?limit=2&after=20003`,
    });
  });

  it('refuses a page size over the maximum', async () => {
    const response = await fetch(`${server.url}/crm/v3/objects/deals?limit=101`, { headers: auth });
    expect(response.status).toBe(400);
  });

  it('refuses to page a search past its result cap', async () => {
    const search = (after: string) =>
      fetch(`${server.url}/crm/v3/objects/deals/search`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ limit: 100, after }),
      });
    const last = await search('100');
    expect(last.status).toBe(200);
    expect(await last.json()).toMatchObject({ total: 250, paging: { next: { after: '200' } } });
    const past = await search('200');
    expect(past.status).toBe(400);
    expect(await past.json()).toMatchObject({ category: 'VALIDATION_ERROR' });
  });
});
