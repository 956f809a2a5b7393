import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { trusted } from 'mongoose';
import { loadConfig } from '../../src/config';
import { retainedUnits, snapshotsToKeep } from '../../src/domain/snapshot-retention';
import { pruneSnapshots, type PruneStep } from '../../src/import/prune-snapshots';
import { DefinitionModel } from '../../src/models/definition.model';
import { OpportunityModel } from '../../src/models/opportunity.model';
import { PipelineFactsModel } from '../../src/models/pipeline-facts.model';
import { PipelineModel } from '../../src/models/pipeline.model';
import { PrunedSnapshotModel } from '../../src/models/pruned-snapshot.model';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { buildApp } from '../../src/server/build-app';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { MAIN_FIXTURE, toImportBody, type CrmFixture } from '../pipelines/fixtures/crm-fixture';
import { readsOf } from './snapshot-reads';

/**
 * Retention through the real stack: daily imports beyond SNAPSHOT_RETENTION_DAYS, then a removal;
 * every snapshot kept reads exactly as before, through the caches that read it before too (on the
 * gateway and on a second instance of the same database); the removed ones answer 404 naming
 * retention; what is stored is only what kept snapshots hold.
 */

const DAY_MS = 86_400_000;
const TODAY = Math.floor(Date.now() / DAY_MS) * DAY_MS;
const DAYS = 12;
const RETENTION_DAYS = 3;
const WEEKS = 5;

/** Day `i` of the history: the fixture with a few amounts moved, so deals get new versions most days. */
function fixtureOfDay(i: number): CrmFixture {
  return {
    ...MAIN_FIXTURE,
    deals: MAIN_FIXTURE.deals
      .filter((deal) => !(deal.id === '4002' && i >= 4 && i < 8)) // leaves for a few days, then comes back
      .map((deal, k) => {
        if (deal.id === '1001') return { ...deal, amount: String(1000 + i) };
        if (k === i % MAIN_FIXTURE.deals.length) return { ...deal, amount: String(500 + 10 * i) };
        return deal;
      }),
  };
}

/** Noon of day `i`; the last day is yesterday. */
const dayAt = (i: number) => new Date(TODAY - (DAYS - i) * DAY_MS + 12 * 3_600_000).toISOString();

async function importDay(gateway: TestGateway, i: number): Promise<string> {
  const res = await gateway.request('POST', '/crm/imports', {
    body: toImportBody(fixtureOfDay(i), dayAt(i)),
  });
  expect(res.status).toBe(200);
  return res.body.snapshot_id;
}

/** The ids the policy keeps of the committed snapshots, as the database holds them now. */
async function keptByPolicy(days: number): Promise<Set<string>> {
  const committed = await SnapshotModel.find({ status: 'committed' }).lean();
  return snapshotsToKeep(
    committed.map((s) => ({
      id: s._id as string,
      snapshotAt: s.snapshotAt,
      seq: s.seq,
      demo: s.demo === true,
    })),
    { days, units: retainedUnits('weekly') },
  );
}

/** The time series of every pipeline of the latest snapshot, by pipeline. */
async function timeseries(
  read: (path: string) => Promise<{ status: number; body: any }>,
): Promise<Record<string, unknown>> {
  const pipelines = await read('/pipelines');
  const ids: string[] = pipelines.body.pipeline_definitions.flatMap((d: any) =>
    d.pipelines.map((p: any) => p.id),
  );
  const series: Record<string, unknown> = {};
  for (const id of ids) {
    for (const metric of ['pipeline_value', 'open_opportunities', 'won_amount']) {
      const res = await read(
        `/pipelines/timeseries?pipeline_id=${encodeURIComponent(id)}&metric_name=${metric}&duration=${WEEKS}`,
      );
      series[`${id} ${metric}`] = { status: res.status, body: res.body };
    }
  }
  return series;
}

/** Whether every stored opportunity version holds in some snapshot left, and nothing is left of `removed`. */
async function expectOnlyWhatKeptSnapshotsHold(removed: string[]): Promise<void> {
  const seqs = (await SnapshotModel.find({}, { seq: 1 }).lean()).map((s) => s.seq);
  const versions = await OpportunityModel.find({}, { fromSeq: 1, toSeq: 1 }).lean();
  const unheld = versions.filter((v) => !seqs.some((seq) => v.fromSeq <= seq && seq < v.toSeq));
  expect(unheld).toEqual([]);
  const ofRemoved = { snapshotId: trusted({ $in: removed }) };
  expect(await PipelineModel.countDocuments(ofRemoved)).toBe(0);
  expect(await PipelineFactsModel.countDocuments(ofRemoved)).toBe(0);
  expect(await DefinitionModel.countDocuments(ofRemoved)).toBe(0);
  expect(await SnapshotModel.countDocuments({ _id: trusted({ $in: removed }) })).toBe(0);
  expect(await PrunedSnapshotModel.countDocuments({ done: false })).toBe(0);
}

describe('snapshot retention over HTTP, on the gateway and on a second instance', () => {
  let a: TestGateway;
  let b: FastifyInstance;
  let bUrl: string;
  const onB = async (
    path: string,
    init: RequestInit = {},
  ): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${bUrl}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${a.adminToken}`,
        ...(init.body ? { 'content-type': 'application/json' } : {}),
      },
    });
    return { status: res.status, body: await res.json() };
  };

  beforeAll(async () => {
    // A keeps everything; B, the second instance, removes what is older than RETENTION_DAYS when it imports.
    a = await startGateway({ env: { RATE_LIMIT: '0', SNAPSHOT_RETENTION_DAYS: '36500' } });
    const config = {
      ...loadConfig({
        LOG_LEVEL: 'silent',
        RATE_LIMIT: '0',
        SNAPSHOT_RETENTION_DAYS: String(RETENTION_DAYS),
      }),
      port: 0,
      host: '127.0.0.1',
    };
    b = await buildApp({
      connection: a.connection,
      config,
      secrets: { jwtSecret: a.jwtSecret, adminToken: a.adminToken, generatedAdminToken: null },
    });
    await b.listen({ port: 0, host: '127.0.0.1' });
    bUrl = `http://127.0.0.1:${(b.server.address() as AddressInfo).port}`;
    await a.request('POST', '/settings/currencies', { body: { currency: 'EUR' } });
    await a.request('POST', '/settings/periods', { body: { period: 'weekly' } });
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.stop();
  });

  it('keeps every read of the kept snapshots and every time series, removes the rest with what only they held', async () => {
    const ids: string[] = [];
    for (let i = 0; i < DAYS; i += 1) ids.push(await importDay(a, i));
    expect(await SnapshotModel.countDocuments({ status: 'committed' })).toBe(DAYS);

    // Everything read before, on both instances: what they keep must not outlive the removal.
    const before = new Map<string, unknown>();
    for (const id of ids) before.set(id, await readsOf(a, id));
    for (const id of ids) expect((await onB(`/pipelines?snapshot_id=${id}`)).status).toBe(200);
    const seriesBefore = await timeseries((path) => a.request('GET', path));
    expect(await timeseries(onB)).toEqual(seriesBefore);
    const pipelinesPerSnapshot = (await PipelineModel.countDocuments({})) / DAYS;

    // B imports the latest state again an hour before the latest snapshot: inside the window, not
    // the last of its week, so no series changes; its import removes what the policy does not keep.
    const kept = await keptByPolicy(RETENTION_DAYS);
    const removed = ids.filter((id) => !kept.has(id));
    expect(removed.length).toBeGreaterThanOrEqual(DAYS - RETENTION_DAYS - 3);
    expect(kept.size).toBeLessThan(DAYS);
    const latestAt = new Date(Date.parse(dayAt(DAYS - 1)) - 3_600_000).toISOString();
    const imported = await onB('/crm/imports', {
      method: 'POST',
      body: JSON.stringify(toImportBody(fixtureOfDay(DAYS - 1), latestAt)),
    });
    expect(imported.status).toBe(200);

    for (const id of ids.filter((id) => kept.has(id)))
      expect({ id, reads: await readsOf(a, id) }).toEqual({ id, reads: before.get(id) });
    expect(await timeseries((path) => a.request('GET', path))).toEqual(seriesBefore);
    expect(await timeseries(onB)).toEqual(seriesBefore);

    const message = `was removed by retention (SNAPSHOT_RETENTION_DAYS=${RETENTION_DAYS})`;
    for (const id of removed) {
      const onA = await a.request('GET', '/pipelines', { query: { snapshot_id: id } });
      expect(onA.status).toBe(404);
      expect(onA.body.message).toContain(`Snapshot ${id} (`);
      expect(onA.body.message).toContain(message);
      const second = await onB(`/pipelines?snapshot_id=${id}`);
      expect(second.status).toBe(404);
      expect(second.body.message).toContain(message);
      const metrics = await a.request('GET', '/pipelines/metrics', {
        query: { pipeline_id: 'sales', snapshot_id: id },
      });
      expect(metrics.status).toBe(404);
      const graphql = await a.graphql('query($id: ID) { snapshot(id: $id) { id } }', { id });
      expect(graphql.body.errors[0].message).toContain(message);
      expect(graphql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    }

    // The listing shows what is left, newest first: the kept ones and B's.
    const listed = await a.graphql('{ snapshots(first: 100) { edges { node { id } } } }');
    const listedIds: string[] = listed.body.data.snapshots.edges.map((e: any) => e.node.id);
    expect(new Set(listedIds)).toEqual(new Set([...kept, imported.body.snapshot_id]));

    // Bounded: the documents of the snapshots left, nothing else.
    expect(await PipelineModel.countDocuments({})).toBe(pipelinesPerSnapshot * (kept.size + 1));
    expect(await PipelineFactsModel.countDocuments({})).toBe(
      pipelinesPerSnapshot * (kept.size + 1),
    );
    expect(await DefinitionModel.countDocuments({})).toBe(2 * (kept.size + 1));
    expect(await PrunedSnapshotModel.countDocuments({})).toBe(removed.length);
    await expectOnlyWhatKeptSnapshotsHold(removed);
  }, 300_000);
});

describe('a removal cut short', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway({ env: { RATE_LIMIT: '0', SNAPSHOT_RETENTION_DAYS: '36500' } });
    await gateway.request('POST', '/settings/periods', { body: { period: 'weekly' } });
  });
  afterAll(async () => gateway?.stop());

  const STEPS: PruneStep[] = [
    'recorded',
    'snapshots-removed',
    'contents-removed',
    'versions-removed',
  ];

  it.each(STEPS.map((step, n) => [step, n]))(
    'after "%s": kept snapshots read as before, and the next removal finishes the job',
    async (step, n) => {
      // Six days first, then two more each round, so that each round has snapshots to remove.
      for (let i = 0; i < 6 + 2 * n; i += 1)
        if (!(await SnapshotModel.exists({ snapshotAt: new Date(dayAt(i)) })))
          await importDay(gateway, i);
      const kept = await keptByPolicy(RETENTION_DAYS);
      const all = (await SnapshotModel.find({ status: 'committed' }, { _id: 1 }).lean()).map(
        (s) => s._id as string,
      );
      const removed = all.filter((id) => !kept.has(id));
      expect(removed.length).toBeGreaterThan(0);
      const before = new Map<string, unknown>();
      for (const id of kept) before.set(id, await readsOf(gateway, id));

      const crash = new Error(`stopped after ${step} (forced)`);
      await expect(
        pruneSnapshots({
          retentionDays: RETENTION_DAYS,
          afterStep: (done) => {
            if (done === step) throw crash;
          },
        }),
      ).rejects.toThrow(crash.message);
      for (const id of kept)
        expect({ id, reads: await readsOf(gateway, id) }).toEqual({ id, reads: before.get(id) });
      expect(await PrunedSnapshotModel.countDocuments({ done: false })).toBe(removed.length);

      // The next removal (here: the next import's) finishes what this one started.
      expect(new Set(await pruneSnapshots({ retentionDays: RETENTION_DAYS }))).toEqual(
        new Set(removed),
      );
      for (const id of kept)
        expect({ id, reads: await readsOf(gateway, id) }).toEqual({ id, reads: before.get(id) });
      for (const id of removed)
        expect(
          (await gateway.request('GET', '/pipelines', { query: { snapshot_id: id } })).status,
        ).toBe(404);
      await expectOnlyWhatKeptSnapshotsHold(removed);
    },
    300_000,
  );
});
