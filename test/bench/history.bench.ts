/**
 * A company's history: N deals syncing daily for D days through the real import path over HTTP.
 * Day 0 imports the whole company (no backfill); each later day imports what changed that day
 * (`--mode incremental`: the changed, new and archived deals) or the whole picture again
 * (`--mode full`), each as a snapshot dated that day. Prints per day the import's time, the data
 * directory, the documents stored and the RSS; at day 0 and at day D it restarts the gateway (and
 * with `--db uri` the store) on the same data and times the start-up, the RSS and the reads
 * (metrics of every pipeline, time series over the whole range, cold and warm), and prints the
 * ratios day D ÷ day 0. Figures go to test/bench/results/history-<db>-<mode>-<deals>x<days>.json.
 *
 *   npm run bench:history -- --deals 20000 --days 60 --mode incremental --db embedded --seed 1
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { HistoryClient } from './history-client';
import { HistoryCompany } from './history-company';
import { collectionBytes, countDocuments } from './history-documents';
import {
  dirBytes,
  freePort,
  rssOf,
  startGateway,
  startStore,
  stop,
  type Started,
} from './history-processes';
import { measureReads } from './history-reads';
import {
  printHistory,
  progressLine,
  ratiosOf,
  type DayFigures,
  type HistoryResult,
  type RestartFigures,
} from './history-report';

const DAY_MS = 86_400_000;
const DB_NAME = 'pipeline-gateway';
/** The account's period: weekly, so a time series over the simulated days has a point a week. */
const PERIOD = 'weekly';
const WEEKS_PER_YEAR = 52;

interface Options {
  deals: number;
  days: number;
  mode: 'incremental' | 'full';
  db: 'embedded' | 'uri';
  seed: number;
}

function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      deals: { type: 'string', default: '20000' },
      days: { type: 'string', default: '60' },
      mode: { type: 'string', default: 'incremental' },
      db: { type: 'string', default: 'embedded' },
      seed: { type: 'string', default: '20260101' },
    },
  });
  const whole = (name: string, raw: string, min: number): number => {
    if (!/^\d+$/.test(raw) || Number(raw) < min)
      throw new Error(`--${name} takes a whole number of ${min} or more, got "${raw}"`);
    return Number(raw);
  };
  if (values.mode !== 'incremental' && values.mode !== 'full')
    throw new Error(`--mode takes incremental or full, got "${values.mode}"`);
  if (values.db !== 'embedded' && values.db !== 'uri')
    throw new Error(`--db takes embedded or uri, got "${values.db}"`);
  return {
    deals: whole('deals', values.deals, 1),
    days: whole('days', values.days, 1),
    mode: values.mode,
    db: values.db,
    seed: whole('seed', values.seed, 0),
  };
}

/** The store's URI naming the gateway's database (the stored one names none). */
function withDatabase(uri: string): string {
  return uri.replace(/\/(\?|$)/, `/${DB_NAME}$1`);
}

/** The simulation's processes on one data directory, restartable. */
class Servers {
  gateway: Started | null = null;
  store: (Started & { uri: string }) | null = null;
  private gatewayPort = 0;
  private storePort = 0;

  constructor(
    private readonly options: Options,
    readonly dataDir: string,
    readonly adminToken: string,
  ) {}

  /** Where the documents are counted: the store's URI, or the embedded store's socket. */
  get countUri(): string {
    if (this.store) return withDatabase(this.store.uri);
    return `mongodb://${encodeURIComponent(path.join(this.dataDir, 'mongod.sock'))}/`;
  }

  async start(): Promise<void> {
    if (this.options.db === 'uri') {
      this.storePort ||= await freePort();
      this.store = await startStore(this.dataDir, this.storePort);
    }
    this.gatewayPort ||= await freePort();
    this.gateway = await startGateway({
      port: this.gatewayPort,
      adminToken: this.adminToken,
      dataDir: this.dataDir,
      uri: this.store ? withDatabase(this.store.uri) : null,
    });
  }

  async stop(): Promise<void> {
    if (this.gateway) await stop(this.gateway.child);
    if (this.store) await stop(this.store.child);
  }

  client(): HistoryClient {
    return new HistoryClient(this.gatewayPort, this.adminToken);
  }

  rss(): { gateway: number; store: number | null } {
    return {
      gateway: rssOf(this.gateway!.child.pid!),
      store: this.store ? rssOf(this.store.child.pid!) : null,
    };
  }
}

async function importDay(
  client: HistoryClient,
  body: Record<string, unknown>,
): Promise<{ seconds: number; bytes: number }> {
  const text = JSON.stringify(body);
  const { seconds } = await client.importBody(text);
  return { seconds, bytes: Buffer.byteLength(text) };
}

/** Stops everything, measures the data at rest, starts again and measures start-up and reads. */
async function restart(servers: Servers, day: number, weeks: number): Promise<RestartFigures> {
  await servers.stop();
  const dataDirAtRest = dirBytes(servers.dataDir);
  await servers.start();
  const rssAfterStart = servers.rss().gateway;
  const client = servers.client();
  // GET /pipelines is the first read; the metrics sweep right after it is still cold.
  const { all } = await client.pipelineIds();
  const reads = await measureReads(client, all, weeks);
  return {
    day,
    dataDirAtRest,
    storeStartSeconds: servers.store?.seconds ?? null,
    storeRss: servers.rss().store,
    startSeconds: servers.gateway!.seconds,
    rssAfterStart,
    rssAfterReads: servers.rss().gateway,
    documents: await countDocuments(servers.countUri, DB_NAME),
    bytes: await collectionBytes(servers.countUri, DB_NAME),
    pipelines: all.length,
    reads,
  };
}

async function dayFigures(
  servers: Servers,
  company: HistoryCompany,
  day: number,
  snapshotAt: string,
  sent: number,
  imported: { seconds: number; bytes: number },
): Promise<DayFigures> {
  const { live, open } = company.counts();
  const rss = servers.rss();
  return {
    day,
    snapshotAt,
    sent,
    bodyBytes: imported.bytes,
    importSeconds: imported.seconds,
    liveDeals: live,
    openDeals: open,
    dataDirBytes: dirBytes(servers.dataDir),
    gatewayRss: rss.gateway,
    storeRss: rss.store,
    documents: await countDocuments(servers.countUri, DB_NAME),
  };
}

async function main(): Promise<void> {
  const options = parseOptions();
  const work = mkdtempSync(path.join(tmpdir(), 'pg-history-'));
  const dataDir = path.join(work, 'data');
  mkdirSync(dataDir, { mode: 0o700 });
  const servers = new Servers(options, dataDir, randomBytes(24).toString('base64url'));
  // Day D is yesterday: every snapshot is in the past, days apart, and the series ends now.
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const firstDay = today - (options.days + 1) * DAY_MS;
  const weeks = Math.min(104, Math.ceil((options.days + 2) / 7) + 1);
  const years = [
    ...new Set([new Date(firstDay).getUTCFullYear(), new Date(today).getUTCFullYear()]),
  ];
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  try {
    log(`generating ${options.deals} deals (seed ${options.seed})`);
    const company = new HistoryCompany(options.deals, options.seed, firstDay);
    await servers.start();
    const client = servers.client();
    await client.setUpAccount(PERIOD);

    const days: DayFigures[] = [];
    const day0At = new Date(company.snapshotTime(0)).toISOString();
    const day0Pages = company.allDealPages();
    const imported0 = await importDay(client, {
      pipelines: company.pipelinesBody(),
      owners: company.ownersBody(),
      deals: day0Pages,
      snapshot_at: day0At,
    });
    const members = await client.setTargets(years, WEEKS_PER_YEAR);
    log(
      `day 0 imported in ${imported0.seconds.toFixed(1)} s; weekly targets set for ${members} members`,
    );
    days.push(await dayFigures(servers, company, 0, day0At, options.deals, imported0));
    log(progressLine(days[0], options.days));
    const first = await restart(servers, 0, weeks);
    log(`restarted at day 0: start-up ${first.startSeconds.toFixed(2)} s`);
    const dayClient = servers.client();

    for (let d = 1; d <= options.days; d += 1) {
      const day = company.simulateDay(d);
      const dealPages =
        options.mode === 'incremental' ? company.changedDealPages() : company.allDealPages();
      const sent = dealPages.reduce((n, page) => n + page.results.length, 0);
      const body =
        options.mode === 'incremental'
          ? { mode: 'incremental', deals: dealPages, snapshot_at: day.snapshotAt }
          : {
              pipelines: company.pipelinesBody(),
              owners: company.ownersBody(),
              deals: dealPages,
              snapshot_at: day.snapshotAt,
            };
      const imported = await importDay(dayClient, body);
      const figures = await dayFigures(servers, company, d, day.snapshotAt, sent, imported);
      days.push(figures);
      log(progressLine(figures, options.days));
    }
    const last = await restart(servers, options.days, weeks);
    log(`restarted at day ${options.days}: start-up ${last.startSeconds.toFixed(2)} s`);

    const result: HistoryResult = { options, days, restarts: [first, last] };
    printHistory(result);
    const file = path.resolve(
      __dirname,
      `../../../test/bench/results/history-${options.db}-${options.mode}-${options.deals}x${options.days}.json`,
    );
    mkdirSync(path.dirname(file), { recursive: true });
    const machine = {
      node: process.version,
      cpus: cpus().length,
      cpu: cpus()[0]?.model ?? 'unknown',
    };
    writeFileSync(
      file,
      `${JSON.stringify({ at: new Date().toISOString(), ...machine, ...result, ratios: ratiosOf(result) }, null, 2)}\n`,
    );
    console.log(`\nwritten to ${path.relative(process.cwd(), file)}`);
  } finally {
    await servers.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
