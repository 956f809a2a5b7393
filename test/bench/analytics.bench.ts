/**
 * Benchmark: movement, stage analytics, slipped deals and the company forecast after 60 days of
 * daily incremental imports, at 20 000 and 100 000 deals in one pipeline definition, on the
 * embedded store and on the store run as its own process reached by MONGODB_URI, in one run.
 * Prints figures; asserts nothing.
 *
 *   npm run bench:analytics
 *   npm run bench:analytics -- --deals 20000,100000 --days 60 --db embedded,uri --seed 20260101
 *   npm run bench:analytics -- --deals 100000 --days 1 --db embedded --members 500
 *
 * `--members` spreads the deals over that many owners (default 48), each a member with their own
 * sub-pipelines.
 *
 * Each (deals, db) starts a gateway as `npm start` does on a fresh data directory, imports day 0 in
 * full and each later day's changes (test/bench/history-company.ts, every deal in its first
 * pipeline), restarts everything on the same data, then times over HTTP, one request at a time:
 * - cold: the first read of each analysis after the restart (the deal states read from the store);
 * - uncached: answers no request asked before (other windows, dates or pipelines), deal states in
 *   memory: what an answer costs when the data changed since it was last asked;
 * - cached: the same request again, answered from the kept answers.
 * The company forecast has a few distinct requests only (its periods), so each of its uncached
 * samples follows a settings write (the forecast cadence, which it does not read), which drops
 * every kept answer.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { HistoryClient } from './history-client';
import { HistoryCompany } from './history-company';
import { collectionBytes, countDocuments } from './history-documents';
import { freePort, startGateway, startStore, stop, type Started } from './history-processes';

const DAY_MS = 86_400_000;
const DB_NAME = 'pipeline-gateway';
const SAMPLES = 40;

interface Options {
  deals: number[];
  days: number;
  dbs: Array<'embedded' | 'uri'>;
  seed: number;
  members: number;
}

function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      deals: { type: 'string', default: '20000,100000' },
      days: { type: 'string', default: '60' },
      db: { type: 'string', default: 'embedded,uri' },
      seed: { type: 'string', default: '20260101' },
      members: { type: 'string', default: '48' },
    },
  });
  const whole = (raw: string): number => {
    if (!/^\d+$/.test(raw) || Number(raw) < 1)
      throw new Error(`expected a whole number, got "${raw}"`);
    return Number(raw);
  };
  const dbs = values.db.split(',');
  if (dbs.some((db) => db !== 'embedded' && db !== 'uri'))
    throw new Error(`--db takes embedded, uri or both, got "${values.db}"`);
  return {
    deals: values.deals.split(',').map(whole),
    days: whole(values.days),
    dbs: dbs as Options['dbs'],
    seed: whole(values.seed),
    members: whole(values.members),
  };
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

async function timed(client: HistoryClient, url: string): Promise<number> {
  const started = performance.now();
  const answer = await client.request('GET', url);
  const ms = performance.now() - started;
  if (answer.status !== 200)
    throw new Error(`GET ${url} answered ${answer.status}: ${answer.body.slice(0, 300)}`);
  return ms;
}

/** What the deal states take, beside the deal versions and the facts, after the days imported. */
interface Storage {
  deals: number;
  db: string;
  snapshots: number;
  dealStatesBytes: number;
  versionsBytes: number;
  factsBytes: number;
}

interface Row {
  deals: number;
  db: string;
  analysis: string;
  coldMs: number;
  uncachedP50: number;
  uncachedP90: number;
  cachedP50: number;
}

async function measure(
  options: Options,
  deals: number,
  db: 'embedded' | 'uri',
  storage: Storage[],
): Promise<Row[]> {
  const work = mkdtempSync(path.join(tmpdir(), 'pg-analytics-'));
  const dataDir = path.join(work, 'data');
  mkdirSync(dataDir, { mode: 0o700 });
  const adminToken = randomBytes(24).toString('base64url');
  const gatewayPort = await freePort();
  const storePort = await freePort();
  let gateway: Started | null = null;
  let store: (Started & { uri: string }) | null = null;
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const start = async () => {
    if (db === 'uri') store = await startStore(dataDir, storePort);
    const uri = store ? store.uri.replace(/\/(\?|$)/, `/${DB_NAME}$1`) : null;
    gateway = await startGateway({ port: gatewayPort, adminToken, dataDir, uri });
  };
  const halt = async () => {
    if (gateway) await stop(gateway.child);
    if (store) await stop(store.child);
    gateway = null;
    store = null;
  };
  try {
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    const firstDay = today - (options.days + 1) * DAY_MS;
    const company = new HistoryCompany(deals, options.seed, firstDay, true, options.members);
    await start();
    let client = new HistoryClient(gatewayPort, adminToken);
    await client.setUpAccount('quarterly');
    // A client per import: building a body can outlast the server's keep-alive, and writing a
    // body to a connection the server has just closed fails (EPIPE).
    const importBody = (body: unknown) =>
      new HistoryClient(gatewayPort, adminToken).importBody(JSON.stringify(body));
    const started = performance.now();
    await importBody({
      pipelines: company.pipelinesBody(),
      owners: company.ownersBody(),
      deals: company.allDealPages(),
      snapshot_at: new Date(company.snapshotTime(0)).toISOString(),
    });
    const imports: number[] = [];
    for (let d = 1; d <= options.days; d += 1) {
      const { snapshotAt } = company.simulateDay(d);
      const { seconds } = await importBody({
        mode: 'incremental',
        deals: company.changedDealPages(),
        snapshot_at: snapshotAt,
      });
      imports.push(seconds);
      if (d % 10 === 0) log(`  ${deals} ${db}: day ${d} imported (${seconds.toFixed(2)} s)`);
    }
    log(
      `  ${deals} ${db}: ${options.days} days in ${((performance.now() - started) / 1000).toFixed(0)} s, median import ${percentile(imports, 0.5).toFixed(2)} s`,
    );
    const countUri = store
      ? (store as { uri: string }).uri.replace(/\/(\?|$)/, `/${DB_NAME}$1`)
      : `mongodb://${encodeURIComponent(path.join(dataDir, 'mongod.sock'))}/`;
    const bytes = await collectionBytes(countUri, DB_NAME);
    const documents = await countDocuments(countUri, DB_NAME);
    storage.push({
      deals,
      db,
      snapshots: documents.pipeline_snapshots ?? 0,
      dealStatesBytes: bytes.deal_states ?? 0,
      versionsBytes: bytes.opportunity_versions ?? 0,
      factsBytes: bytes.pipeline_facts ?? 0,
    });
    await halt();
    await start();
    client = new HistoryClient(gatewayPort, adminToken);
    const { all, complete } = await client.pipelineIds();
    const definition = complete[0];
    const subs = all.filter((id) => id.startsWith(`${definition}.`));
    const to = day(today - DAY_MS);
    const from = day(today - 8 * DAY_MS);
    const q = (params: Record<string, string>) =>
      new URLSearchParams({ pipeline_id: definition, ...params }).toString();

    // Each analysis: its cold read (states of a snapshot not read yet), then SAMPLES answers no
    // request asked before, then one request again and again.
    const days = ['monday', 'tuesday'];
    const analyses: Array<{
      name: string;
      url: (i: number) => string;
      before?: (i: number) => Promise<unknown>;
    }> = [
      {
        name: 'movement, 7 days, whole pipeline',
        url: (i) =>
          `/pipelines/movement?${q({ from, to, close_window: `${day(today - 400 * DAY_MS + i * DAY_MS)}..${day(today + 400 * DAY_MS)}` })}`,
      },
      {
        name: 'movement, 7 days, a sub-pipeline',
        url: (i) =>
          `/pipelines/movement?${q({ pipeline_id: subs[i % subs.length], from: day(today - (2 + (i % 6)) * DAY_MS), to, close_window: 'all' })}`,
      },
      {
        name: 'movement deals, a page of 100',
        url: (i) =>
          `/pipelines/movement/deals?${q({ from: day(today - (2 + (i % 6)) * DAY_MS), to, close_window: 'all', bucket: ['won', 'unchanged', 'pushed_out', 'created'][i % 4], limit: '100' })}`,
      },
      {
        name: 'stage analytics, 30 days',
        url: (i) =>
          `/pipelines/stage-analytics?${q({ from: day(today - (30 + i) * DAY_MS), to: day(today - 3 * DAY_MS) })}`,
      },
      {
        name: 'slipped deals, 14 days',
        url: (i) =>
          `/pipelines/slipped-deals?${q({ pipeline_id: i % 2 === 0 ? definition : subs[i % subs.length], from: day(today - (8 + (i % 6)) * DAY_MS), to: day(today - 5 * DAY_MS) })}`,
      },
      {
        name: `company forecast, ${options.members} members`,
        url: () => '/forecasts?scope=company',
        before: (i) =>
          client.ok('PUT', '/settings/forecast-cadence', { every: 'week', day: days[i % 2] }),
      },
    ];
    const rows: Row[] = [];
    for (const analysis of analyses) {
      const coldMs = await timed(client, analysis.url(0));
      const uncached: number[] = [];
      for (let i = 1; i <= SAMPLES; i += 1) {
        await analysis.before?.(i);
        uncached.push(await timed(client, analysis.url(i)));
      }
      const cached: number[] = [];
      for (let i = 0; i < SAMPLES; i += 1) cached.push(await timed(client, analysis.url(SAMPLES)));
      rows.push({
        deals,
        db,
        analysis: analysis.name,
        coldMs,
        uncachedP50: percentile(uncached, 0.5),
        uncachedP90: percentile(uncached, 0.9),
        cachedP50: percentile(cached, 0.5),
      });
    }
    return rows;
  } finally {
    await halt();
    rmSync(work, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const options = parseOptions();
  const rows: Row[] = [];
  const storage: Storage[] = [];
  for (const db of options.dbs) {
    for (const deals of options.deals) {
      process.stderr.write(`${deals} deals, ${db}: importing ${options.days} days\n`);
      rows.push(...(await measure(options, deals, db, storage)));
    }
  }
  const mb = (n: number) => (n / 1e6).toFixed(1).padStart(8);
  console.log('deals   | db       | snapshots kept | deal states MB | deal versions MB | facts MB');
  for (const s of storage)
    console.log(
      `${String(s.deals).padEnd(7)} | ${s.db.padEnd(8)} | ${String(s.snapshots).padStart(14)} | ${mb(s.dealStatesBytes).padStart(14)} | ${mb(s.versionsBytes).padStart(16)} | ${mb(s.factsBytes)}`,
    );
  console.log(
    'deals   | db       | analysis                          | cold ms | uncached p50 | p90    | cached p50',
  );
  for (const r of rows) {
    console.log(
      `${String(r.deals).padEnd(7)} | ${r.db.padEnd(8)} | ${r.analysis.padEnd(33)} | ${r.coldMs.toFixed(1).padStart(7)} | ${r.uncachedP50.toFixed(1).padStart(12)} | ${r.uncachedP90.toFixed(1).padStart(6)} | ${r.cachedP50.toFixed(2).padStart(10)}`,
    );
  }
  const file = path.resolve(
    __dirname,
    `../../../test/bench/results/analytics-${options.dbs.join('-')}-${options.deals.join('-')}${options.members === 48 ? '' : `-m${options.members}`}.json`,
  );
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(
    file,
    `${JSON.stringify({ at: new Date().toISOString(), node: process.version, cpus: cpus().length, options, rows, storage }, null, 2)}\n`,
  );
  console.log(`\nwritten to ${path.relative(process.cwd(), file)}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
