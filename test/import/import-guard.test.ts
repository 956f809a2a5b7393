import { MemberModel } from '../../src/models/member.model';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { messyImport } from './fixtures';

/**
 * Imports that cannot poison history (docs/importing.md, "The import guard"), over HTTP: a
 * snapshot_at ahead of the clock, an incremental import that would empty the pipelines, amounts
 * whose sums would not be finite numbers.
 */

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway({ env: { RATE_LIMIT: '0' } });
  for (const [path, body] of [
    ['/settings/currencies', { currency: 'EUR' }],
    ['/settings/periods', { period: 'quarterly' }],
  ] as const)
    expect((await gateway.request('POST', path, { body })).status).toBe(200);
});
afterAll(async () => {
  await gateway?.stop();
});

type Deal = { id: string; properties: Record<string, string | null>; archived?: boolean };
type Page = { results: Deal[] };

/** A deal of the messy data set, first occurrence, copied. */
function messyDeal(id: string): Deal {
  const found = (messyImport().deals as Page[]).flatMap((p) => p.results).find((d) => d.id === id);
  if (!found) throw new Error(`no deal ${id} in the messy data set`);
  return structuredClone(found);
}

const OVERRIDE = 'send "force": true (CLI --force) to import it anyway';

async function snapshotCount(): Promise<number> {
  return SnapshotModel.countDocuments();
}

describe('a snapshot_at in the future', () => {
  it('answers 409 naming the reason for a snapshot_at more than 5 minutes ahead, and writes nothing', async () => {
    const response = await gateway.request('POST', '/crm/imports', {
      body: { ...messyImport(), snapshot_at: '2100-01-01T00:00:00Z' },
    });
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ success: false, statusCode: 409 });
    expect(response.body.message).toMatch(
      /^snapshot_at 2100-01-01T00:00:00\.000Z is in the future \(the gateway's clock says \S+; at most 5 minutes ahead are accepted\): a snapshot dated ahead would stay the latest, hiding every later import from reads that name no snapshot\. Send the moment the data was read; /,
    );
    expect(response.body.message).toContain(OVERRIDE);

    const sixMinutes = new Date(Date.now() + 6 * 60_000).toISOString();
    const graphql = await gateway.graphql(
      'mutation Import($input: CrmImportInput!) { importCrmData(input: $input) { snapshotId } }',
      { input: { ...messyImport(), snapshotAt: sixMinutes } },
    );
    expect(graphql.body.errors[0].extensions.code).toBe('CONFLICT');
    expect(graphql.body.errors[0].message).toContain('is in the future');

    expect(await snapshotCount()).toBe(0);
    expect(await MemberModel.countDocuments()).toBe(0);
  });
});

describe('the keep-half guard on incremental imports', () => {
  it('starts from a full import of eight deals', async () => {
    const response = await gateway.request('POST', '/crm/imports', {
      body: { ...messyImport(), snapshot_at: '2026-01-05T00:00:00Z' },
    });
    expect(response.status).toBe(200);
    expect(response.body.counts.deals).toBe(8);
  });

  it("refuses an incremental import removing more than half of the latest snapshot's deals; half passes", async () => {
    const before = await snapshotCount();
    const archived = (ids: string[]) => ids.map((id) => ({ ...messyDeal(id), archived: true }));
    const tooMany = await gateway.request('POST', '/crm/imports', {
      body: {
        mode: 'incremental',
        deals: { results: archived(['d1', 'd2', 'd3', 'd4', 'd5']) },
        snapshot_at: '2026-01-06T00:00:00Z',
      },
    });
    expect(tooMany.status).toBe(409);
    expect(tooMany.body.message).toBe(
      "This incremental import removes 5 of the latest snapshot's 8 deals (more than half): " +
        'the deals it archives, those it carries that are no longer usable, and those whose stage its pipelines no longer have all leave; ' +
        OVERRIDE,
    );
    expect(await snapshotCount()).toBe(before);

    const half = await gateway.request('POST', '/crm/imports', {
      body: {
        mode: 'incremental',
        deals: { results: archived(['d1', 'd2', 'd3', 'd4']) },
        snapshot_at: '2026-01-06T00:00:00Z',
      },
    });
    expect(half.status).toBe(200);
    expect(half.body.message).toMatch(/^Applied 0 changed and 4 removed deals: .* holds 4 deals/);
  });

  it('refuses an incremental import whose pipelines leave none (409), and forced it removes every deal', async () => {
    const before = await snapshotCount();
    const body = {
      mode: 'incremental',
      pipelines: { results: [] },
      deals: { results: [] },
      snapshot_at: '2026-01-07T00:00:00Z',
    };
    const refused = await gateway.request('POST', '/crm/imports', { body });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(
      "This import leaves no pipeline (the latest snapshot has 2): its pipelines.results holds none that is not archived, so every deal would leave. To keep the latest snapshot's pipelines, leave pipelines out of an incremental import; " +
        OVERRIDE,
    );
    const graphql = await gateway.graphql(
      'mutation Import($input: CrmImportInput!) { importCrmData(input: $input) { snapshotId } }',
      {
        input: {
          mode: 'INCREMENTAL',
          pipelines: { results: [] },
          deals: { results: [] },
          snapshotAt: '2026-01-07T00:00:00Z',
        },
      },
    );
    expect(graphql.body.errors[0].extensions.code).toBe('CONFLICT');
    expect(await snapshotCount()).toBe(before);

    const forced = await gateway.request('POST', '/crm/imports', {
      body: { ...body, force: true },
    });
    expect(forced.status).toBe(200);
    expect(forced.body.message).toMatch(/^Applied 0 changed and 4 removed deals: .* holds 0 deals/);
  });
});

describe('amounts', () => {
  /** The messy data set with the first copy of each deal named given the amount, as an import body. */
  function withAmounts(amounts: Record<string, string>) {
    const body = messyImport();
    const seen = new Set<string>();
    for (const page of body.deals as Page[])
      for (const deal of page.results) {
        if (amounts[deal.id] !== undefined && !seen.has(deal.id))
          deal.properties.amount = amounts[deal.id];
        seen.add(deal.id);
      }
    return body;
  }

  it('refuses an amount that is a JSON number too large to be one (1e309) with 400 naming it, writing nothing', async () => {
    const before = await snapshotCount();
    // JSON.parse reads 1e309 as Infinity; JSON.stringify cannot write one, so it goes in by hand.
    const raw = JSON.stringify({
      ...withAmounts({ d10: '__ONE_E_309__' }),
      snapshot_at: '2026-01-08T00:00:00Z',
    }).replace('"__ONE_E_309__"', '1e309');
    const response = await gateway.request('POST', '/crm/imports', {
      body: raw,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      {
        field: 'deals[1].results[0].properties.amount',
        message: 'expected a finite number, got number Infinity',
      },
    ]);
    expect(await snapshotCount()).toBe(before);
  });

  it('skips amounts too large to sum (over 1e15, 1.7e308 twice, "Infinity", "1e309") with a reason; every metric stays a number', async () => {
    const response = await gateway.request('POST', '/crm/imports', {
      body: {
        ...withAmounts({
          d1: '1.7e308',
          d2: '1.7e308',
          d3: 'Infinity',
          d10: '1e309',
          d11: '1000000000000001',
          d13: '1e15',
        }),
        snapshot_at: '2026-01-08T00:00:00Z',
      },
    });
    expect(response.status).toBe(200);
    const out = 'outside the amounts counted (0 to 1e15); left out of every metric';
    expect(response.body.skipped).toEqual(
      expect.arrayContaining([
        { id: 'd1', reason: `deal has amount "1.7e308", ${out}` },
        { id: 'd2', reason: `deal has amount "1.7e308", ${out}` },
        { id: 'd3', reason: `deal has amount "Infinity", ${out}` },
        { id: 'd10', reason: `deal has amount "1e309", ${out}` },
        { id: 'd11', reason: `deal has amount "1000000000000001", ${out}` },
      ]),
    );
    expect(response.body.skipped.map((s: { id: string }) => s.id)).not.toContain('d13');
    expect(response.body.counts.deals).toBe(3); // d4, d5 and d13 (1e15, the largest amount counted)

    for (const pipelineId of ['default', 'renewals']) {
      const metrics = await gateway.request('GET', '/pipelines/metrics', {
        query: { pipeline_id: pipelineId },
      });
      expect(metrics.status).toBe(200);
      for (const m of metrics.body.metrics) {
        const value = m.metric_value.value;
        expect({
          [m.metric_definition.api_codename]: value === null || Number.isFinite(value),
        }).toEqual({ [m.metric_definition.api_codename]: true });
      }
    }
    const graphql = await gateway.graphql(
      '{ snapshot { definitions { pipelines { id metrics { definition { apiCodename } value } } } } }',
    );
    expect(graphql.body.errors).toBeUndefined();
    const renewals = graphql.body.data.snapshot.definitions
      .flatMap((d: { pipelines: unknown[] }) => d.pipelines)
      .find((p: { id: string }) => p.id === 'renewals');
    const value = renewals.metrics.find(
      (m: { definition: { apiCodename: string } }) => m.definition.apiCodename === 'pipeline_value',
    ).value;
    expect(value).toBe(1e15); // d13, open in r-open
  });
});

describe('a snapshot_at a little ahead', () => {
  it('takes a snapshot_at up to 5 minutes ahead of the clock (clocks differ)', async () => {
    const fourMinutes = new Date(Date.now() + 4 * 60_000).toISOString();
    const response = await gateway.request('POST', '/crm/imports', {
      body: { ...messyImport(), snapshot_at: fourMinutes },
    });
    expect(response.status).toBe(200);
  });
});
