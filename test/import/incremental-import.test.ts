import { MemberModel } from '../../src/models/member.model';
import { opportunitiesOf } from '../helpers/opportunities-of';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { startGateway, TestGateway } from '../helpers/gateway';
import { messyImport } from './fixtures';

/**
 * Incremental imports and the import guard (docs/importing.md), over HTTP. An incremental import
 * must read exactly as a full import of the whole picture it makes: both are imported into the
 * same database, at two moments of one quarter, and every read of the two snapshots is compared.
 */

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway();
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
  return found;
}

/** The messy pages with some deals replaced and others added: a whole picture. */
function wholePicture(changed: Deal[]): Page[] {
  const byId = new Map(changed.map((d) => [d.id, d]));
  const pages = (messyImport().deals as Page[]).map((page) => ({
    ...page,
    results: page.results.map((d) => {
      const replacement = byId.get(d.id);
      if (!replacement) return d;
      byId.delete(d.id);
      return replacement;
    }),
  }));
  pages.push({ results: [...byId.values()] });
  return pages;
}

const SNAPSHOT_READ = `query Snapshot($id: ID) {
  snapshot(id: $id) {
    definitions {
      id label
      stages { id label order probability isClosed }
      pipelines { id kind isSubPipeline member { id } team { id } metrics { definition { apiCodename } value unit } }
    }
  }
}`;

const OPPORTUNITIES_READ = `query Opportunities($id: ID!, $snapshotId: ID) {
  pipeline(id: $id, snapshotId: $snapshotId) {
    opportunities(first: 100) {
      edges { node { id name amount outcome closedAt createdAt stage { id } member { id } team { id } } }
    }
  }
}`;

/** Every read of a snapshot that must not depend on how it was imported: REST pipelines and stages, GraphQL opportunities and metrics. */
async function readsOf(snapshotId: string) {
  const snapshot = await gateway.graphql(SNAPSHOT_READ, { id: snapshotId });
  expect(snapshot.body.errors).toBeUndefined();
  const opportunities: Record<string, unknown> = {};
  for (const definition of snapshot.body.data.snapshot.definitions) {
    for (const pipeline of definition.pipelines) {
      const read = await gateway.graphql(OPPORTUNITIES_READ, { id: pipeline.id, snapshotId });
      expect(read.body.errors).toBeUndefined();
      opportunities[pipeline.id] = read.body.data.pipeline.opportunities;
    }
  }
  const rest = await gateway.request('GET', `/pipelines?snapshot_id=${snapshotId}`);
  expect(rest.status).toBe(200);
  const { snapshot_id: _id, created_at: _at, ...pipelines } = rest.body;
  const stages = await gateway.request(
    'GET',
    `/pipelines/default/stages?snapshot_id=${snapshotId}`,
  );
  return {
    snapshot: snapshot.body.data,
    opportunities,
    pipelines,
    stages: { status: stages.status, body: stages.body },
  };
}

async function snapshotCount(): Promise<number> {
  return SnapshotModel.countDocuments();
}

describe('import mode and the guard', () => {
  it('answers 400 for an unknown mode or a non-boolean force, writing nothing', async () => {
    for (const extra of [
      { mode: 'partial' },
      { force: 'yes' },
      { mode: 'incremental', backfill: true },
    ]) {
      const response = await gateway.request('POST', '/crm/imports', {
        body: { ...messyImport(), ...extra },
      });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ success: false, statusCode: 400 });
    }
    const graphql = await gateway.graphql(
      'mutation { importCrmData(input: { deals: { results: [] }, mode: PARTIAL }) { snapshotId } }',
    );
    expect(graphql.status).toBe(400);
    expect(await snapshotCount()).toBe(0);
  });

  it('refuses an incremental import with no snapshot to apply it to (409), writing nothing', async () => {
    const response = await gateway.request('POST', '/crm/imports', {
      body: { mode: 'incremental', deals: { results: [messyDeal('d1')] } },
    });
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ success: false, statusCode: 409 });
    expect(response.body.message).toContain('No snapshot to apply an incremental import to');
    expect(await snapshotCount()).toBe(0);
    expect(await MemberModel.countDocuments()).toBe(0);
  });

  it('refuses an import in which no deal is usable, naming the missing property and how to request it', async () => {
    const withoutPipeline = (messyImport().deals as Page[]).map((page) => ({
      results: page.results.map((d) => ({ ...d, properties: { ...d.properties, pipeline: null } })),
    }));
    const response = await gateway.request('POST', '/crm/imports', {
      body: { ...messyImport(), deals: withoutPipeline },
    });
    expect(response.status).toBe(409);
    expect(response.body.message).toBe(
      'No deal is usable: no deal has the property `pipeline`: request it with ' +
        '`properties=dealname,amount,dealstage,pipeline,closedate,createdate,hubspot_owner_id` on GET /crm/v3/objects/deals; ' +
        'send "force": true (CLI --force) to import it anyway',
    );
    const empty = await gateway.request('POST', '/crm/imports', {
      body: { ...messyImport(), deals: { results: [] } },
    });
    expect(empty.status).toBe(409);
    expect(empty.body.message).toContain('The import carries no deal');
    expect(await snapshotCount()).toBe(0);
    expect(await MemberModel.countDocuments()).toBe(0);
  });
});

describe('incremental imports', () => {
  let fullId: string;

  it('starts from a full import', async () => {
    const response = await gateway.request('POST', '/crm/imports', {
      body: { ...messyImport(), snapshot_at: '2026-01-05T00:00:00Z' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ mode: 'full', counts: { deals: 8 } });
    fullId = response.body.snapshot_id;
  });

  it("refuses a full import keeping fewer than half of the latest snapshot's deals, unless forced", async () => {
    const before = await snapshotCount();
    const partial = {
      ...messyImport(),
      deals: { results: [messyDeal('d1'), messyDeal('d3'), messyDeal('d5')] },
      snapshot_at: '2026-01-06T00:00:00Z',
    };
    const response = await gateway.request('POST', '/crm/imports', { body: partial });
    expect(response.status).toBe(409);
    expect(response.body.message).toBe(
      "This full import keeps 3 of the latest snapshot's 8 deals (fewer than half): every deal it does not carry would leave. " +
        'For changes only, send "mode": "incremental"; send "force": true (CLI --force) to import it anyway',
    );
    expect(await snapshotCount()).toBe(before);
    // Forced, it is written, and read as the whole picture; a full import restores the eight deals.
    const forced = await gateway.request('POST', '/crm/imports', {
      body: { ...partial, force: true },
    });
    expect(forced.status).toBe(200);
    expect(forced.body.counts.deals).toBe(3);
    const restored = await gateway.request('POST', '/crm/imports', {
      body: { ...messyImport(), snapshot_at: '2026-01-07T00:00:00Z' },
    });
    expect(restored.status).toBe(200);
    expect(restored.body.counts.deals).toBe(8);
  });

  it('applies changed, new and archived deals, pipelines and owners left out, and reads as the whole picture imported in full', async () => {
    const d1 = messyDeal('d1');
    d1.properties = { ...d1.properties, dealstage: 'closedwon', amount: null }; // stage move, amount to null
    const d4 = { ...messyDeal('d4'), archived: true }; // leaves
    const d13 = messyDeal('d13');
    d13.properties = { ...d13.properties, hubspot_owner_id: '101' }; // owner change, through the existing link
    const d20 = {
      id: 'd20',
      properties: {
        ...messyDeal('d10').properties,
        dealname: 'Deal d20',
        hubspot_owner_id: '103',
        amount: '640',
      },
    };
    const changes = [d1, d4, d13, d20];

    const incremental = await gateway.request('POST', '/crm/imports', {
      body: {
        mode: 'incremental',
        deals: { results: changes },
        snapshot_at: '2026-01-10T00:00:00Z',
      },
    });
    expect(incremental.status).toBe(200);
    expect(incremental.body).toMatchObject({
      mode: 'incremental',
      counts: { deals: 8, pipelines: 2, stages: 10 },
    });
    expect(incremental.body.message).toMatch(
      /^Applied 3 changed and 1 removed deals: snapshot .* holds 8 deals in 2 pipelines$/,
    );

    const full = await gateway.request('POST', '/crm/imports', {
      body: { ...messyImport(), deals: wholePicture(changes), snapshot_at: '2026-01-11T00:00:00Z' },
    });
    expect(full.status).toBe(200);
    expect(full.body.counts.deals).toBe(8);

    const fromIncremental = await readsOf(incremental.body.snapshot_id);
    expect(fromIncremental).toEqual(await readsOf(full.body.snapshot_id));
    // And it differs from the snapshot it was applied to, as the changes say.
    expect(fromIncremental).not.toEqual(await readsOf(fullId));
    const d1Now = (await opportunitiesOf(incremental.body.snapshot_id)).find(
      (o) => o.dealId === 'd1',
    );
    expect(d1Now).toMatchObject({ stageId: 'closedwon', amount: 0, outcome: 'won' });
    expect(
      (await opportunitiesOf(incremental.body.snapshot_id)).some((o) => o.dealId === 'd4'),
    ).toBe(false);
    // The earlier snapshots read as before.
    expect(await opportunitiesOf(fullId)).toHaveLength(8);
  });

  it('takes new pipelines in an incremental import: a kept deal whose stage is gone leaves, reported', async () => {
    const pipelines = messyImport().pipelines;
    const renewals = pipelines.results.find((p: { id: string }) => p.id === 'renewals');
    renewals.stages = renewals.stages.filter((s: { id: string }) => s.id !== 'r-won');
    const response = await gateway.request('POST', '/crm/imports', {
      body: {
        mode: 'incremental',
        pipelines,
        deals: { results: [] },
        snapshot_at: '2026-01-12T00:00:00Z',
      },
    });
    expect(response.status).toBe(200);
    expect(response.body.counts).toMatchObject({ deals: 7, stages: 9 });
    expect(response.body.skipped).toContainEqual({
      id: 'd5',
      reason:
        'deal kept from the latest snapshot is in stage "r-won" of pipeline "renewals", which the imported pipelines no longer have; left out of every metric',
    });
  });

  it('runs over GraphQL with mode INCREMENTAL and answers the changes', async () => {
    const d3 = messyDeal('d3');
    d3.properties = { ...d3.properties, dealstage: 'qualifiedtobuy' };
    const { body } = await gateway.graphql(
      `mutation Import($input: CrmImportInput!) { importCrmData(input: $input) { mode changes { updated removed } counts { deals } reused } }`,
      {
        input: {
          mode: 'INCREMENTAL',
          deals: { results: [d3, { ...messyDeal('d10'), archived: true }] },
          snapshotAt: '2026-01-13T00:00:00Z',
        },
      },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.importCrmData).toEqual({
      mode: 'INCREMENTAL',
      changes: { updated: 1, removed: 1 },
      counts: { deals: 6 },
      reused: false,
    });
  });

  it('refuses an incremental import dated before the latest snapshot', async () => {
    const before = await snapshotCount();
    const response = await gateway.request('POST', '/crm/imports', {
      body: {
        mode: 'incremental',
        deals: { results: [messyDeal('d1')] },
        snapshot_at: '2026-01-01T00:00:00Z',
      },
    });
    expect(response.status).toBe(409);
    expect(response.body.message).toContain('applies changes to the latest snapshot');
    expect(await snapshotCount()).toBe(before);
  });
});
