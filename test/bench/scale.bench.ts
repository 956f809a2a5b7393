/**
 * The gateway at scale, per deal count and database mode. For each size it writes HubSpot-shaped
 * export files (3 pipelines, 2 000 owners, pages of 100 deals; hubspot-files.ts) and, in each mode
 * (`embedded`: the default, DATA_DIR; `uri`: MONGODB_URI against the store run as its own process,
 * as `npm run db` runs it), on a fresh database:
 * - a full import with `npm run import`'s program: wall time, deals/s, the importing process's
 *   peak RSS and CPU time, and the store process's (uri);
 * - an incremental import of 2 % of the deals, changed;
 * - the data directory's size;
 * - the gateway's start-up (`npm start`'s program, spawn to first `/healthz` answer) and its RSS;
 * - the first (uncached) answer of GET /pipelines/metrics, of the explorer's overview query
 *   (every pipeline with its metrics: the dashboard) and of GET /pipelines/movement from the full
 *   import's snapshot to the incremental one's, each timed as a client sees it.
 * Each size's results are printed as a line of JSON as soon as they are measured, then the table.
 *
 *   npm run bench:scale -- --deals 100000,300000,1000000 [--modes embedded,uri] [--owners 2000]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { print } from 'graphql';
import { ExplorerOverviewDocument } from '../../src/generated/graphql';
import { writeChangedDeals, writeHubSpotFiles } from './hubspot-files';
import { startStoreProcess, type StoreProcess } from '../helpers/store-process';

/** The compiled tree this file runs from (dist/). */
const DIST = path.join(__dirname, '..', '..');
const PROBE = path.join(__dirname, 'scale-peak-rss.js');
const MB = 1024 * 1024;
const ADMIN_TOKEN = 'scale-bench-admin-token-0123456789';
const NOW = new Date();

type Mode = 'embedded' | 'uri';

interface Run {
  seconds: number;
  peakRss: number;
  cpuSeconds: number;
}

interface Result {
  deals: number;
  mode: Mode;
  full: Run;
  /** The store process's CPU seconds during the full import (uri). */
  storeCpuSeconds: number | null;
  incremental: Run;
  dataDirBytes: number;
  startSeconds: number;
  startRss: number;
  metricsMs: number;
  /** Its time, or why it failed. */
  dashboardMs: number | string;
  movementMs: number;
  /** The store process's peak RSS over everything (uri). */
  storePeakRss: number | null;
}

function dirBytes(dir: string): number {
  let sum = 0;
  for (const name of readdirSync(dir)) {
    const stats = statSync(path.join(dir, name));
    sum += stats.isDirectory() ? dirBytes(path.join(dir, name)) : stats.size;
  }
  return sum;
}

/** The environment of a child: the mode's database, whatever the caller's shell says. */
function childEnv(database: { dataDir: string; uri?: string }, extra: NodeJS.ProcessEnv = {}) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: database.dataDir,
    LOG_LEVEL: 'warn',
    ...extra,
  };
  if (database.uri) env.MONGODB_URI = database.uri;
  else delete env.MONGODB_URI;
  return env;
}

/** Runs a compiled program to its end; resolves with its wall time, peak RSS and CPU time. */
function run(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  scratch: string,
): Promise<Run> {
  const rssFile = path.join(scratch, `peak-rss-${process.pid}`);
  const started = performance.now();
  const child = spawn(process.execPath, ['--require', PROBE, path.join(DIST, script), ...args], {
    env: { ...env, SCALE_PEAK_RSS_FILE: rssFile },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${script} exited with code ${code}:\n${stderr}`));
      const [peakRss, cpuSeconds] = readFileSync(rssFile, 'utf8').split(' ').map(Number);
      rmSync(rssFile, { force: true });
      resolve({ seconds: (performance.now() - started) / 1000, peakRss, cpuSeconds });
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** RSS and peak RSS of a running process, and its CPU seconds, from /proc (Linux). */
function procOf(pid: number): { rss: number; peak: number; cpuSeconds: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, fields 14 and 15 of stat (11 and 12 after the command), in clock ticks.
  const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / 100;
  return { rss: kb('VmRSS'), peak: kb('VmHWM'), cpuSeconds };
}

async function timed(request: () => Promise<Response>): Promise<number> {
  const started = performance.now();
  const response = await request();
  const body = await response.text();
  if (!response.ok || body.includes('"errors"'))
    throw new Error(`${response.status}: ${body.slice(0, 300)}`);
  return performance.now() - started;
}

/** Starts the gateway, waits for /healthz, times the first answers, stops it. */
async function startGateway(env: NodeJS.ProcessEnv) {
  const port = await freePort();
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [path.join(DIST, 'src/index.js')], {
    // A cold answer may take longer than the default budget at these sizes: it is measured, not cut.
    env: {
      ...env,
      PORT: String(port),
      SEED_DEMO: 'false',
      ADMIN_TOKEN,
      REQUEST_TIMEOUT_MS: '600000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`the gateway exited with code ${child.exitCode} before answering`);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (res) => res.ok,
        () => false,
      );
      if (ok) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    const { rss } = procOf(child.pid!);
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const metricsMs = await timed(() =>
      fetch(`http://127.0.0.1:${port}/pipelines/metrics?pipeline_id=default`, { headers }),
    );
    const snapshots = (await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ snapshots(first: 2) { edges { node { id } } } }' }),
    }).then((res) => res.json())) as { data: { snapshots: { edges: { node: { id: string } }[] } } };
    const [to, from] = snapshots.data.snapshots.edges.map((edge) => edge.node.id);
    const movementMs = await timed(() =>
      fetch(
        `http://127.0.0.1:${port}/pipelines/movement?pipeline_id=default&from=${from}&to=${to}&close_window=all`,
        { headers },
      ),
    );
    // Last: on a store process busy for longer than the gateway's heartbeat time-out, this answer
    // may fail; that is recorded rather than ending the run.
    const dashboardMs = await timed(() =>
      fetch(`http://127.0.0.1:${port}/graphql`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ query: print(ExplorerOverviewDocument) }),
      }),
    ).catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
    return { seconds, rss, metricsMs, dashboardMs, movementMs };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

async function measure(
  deals: number,
  mode: Mode,
  files: { all: string[]; changed: string },
  scratch: string,
): Promise<Result> {
  const dataDir = mkdtempSync(path.join(scratch, `data-${mode}-`));
  let store: StoreProcess | null = null;
  try {
    if (mode === 'uri') store = await startStoreProcess();
    // uri: the gateway's DATA_DIR holds only what it keeps itself (its admin token).
    const env = childEnv({ dataDir, uri: store?.uri });
    const storeBefore = store ? procOf(store.child.pid!).cpuSeconds : 0;
    const full = await run('src/cli/import.js', files.all, env, scratch);
    const storeCpuSeconds = store ? procOf(store.child.pid!).cpuSeconds - storeBefore : null;
    console.error(`  ${mode}: full import of ${deals} deals in ${full.seconds.toFixed(1)} s`);
    const incremental = await run(
      'src/cli/import.js',
      ['--incremental', files.changed],
      env,
      scratch,
    );
    const gateway = await startGateway(env);
    const dataDirBytes = dirBytes(store ? store.dataDir : dataDir);
    return {
      deals,
      mode,
      full,
      storeCpuSeconds,
      incremental,
      dataDirBytes,
      startSeconds: gateway.seconds,
      startRss: gateway.rss,
      metricsMs: gateway.metricsMs,
      dashboardMs: gateway.dashboardMs,
      movementMs: gateway.movementMs,
      storePeakRss: store ? procOf(store.child.pid!).peak : null,
    };
  } finally {
    await store?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function print_(results: Result[]): void {
  const mb = (bytes: number | null): string =>
    bytes === null ? '-' : `${(bytes / MB).toFixed(0)} MB`;
  const rows = [
    [
      'deals',
      'mode',
      'full import',
      'deals/s',
      'import peak RSS',
      'import CPU',
      'store CPU',
      'store peak RSS',
      '2 % incremental',
      'data dir',
      'start-up',
      'RSS up',
      'metrics (cold)',
      'dashboard (cold)',
      'movement (cold)',
    ],
    ...results.map((r) => [
      String(r.deals),
      r.mode,
      `${r.full.seconds.toFixed(1)} s`,
      String(Math.round(r.deals / r.full.seconds)),
      mb(r.full.peakRss),
      `${r.full.cpuSeconds.toFixed(1)} s`,
      r.storeCpuSeconds === null ? '-' : `${r.storeCpuSeconds.toFixed(1)} s`,
      mb(r.storePeakRss),
      `${r.incremental.seconds.toFixed(1)} s`,
      mb(r.dataDirBytes),
      `${r.startSeconds.toFixed(1)} s`,
      mb(r.startRss),
      `${r.metricsMs.toFixed(0)} ms`,
      typeof r.dashboardMs === 'number' ? `${r.dashboardMs.toFixed(0)} ms` : 'failed',
      `${r.movementMs.toFixed(0)} ms`,
    ]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  for (const row of rows) console.log(row.map((cell, i) => cell.padStart(widths[i])).join('  '));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      deals: { type: 'string', default: '100000,300000' },
      modes: { type: 'string', default: 'embedded,uri' },
      owners: { type: 'string', default: '2000' },
    },
  });
  const sizes = values.deals.split(',').map((raw) => {
    if (!/^\d+$/.test(raw) || Number(raw) < 1)
      throw new Error(`--deals takes positive whole numbers separated by commas, got "${raw}"`);
    return Number(raw);
  });
  const modes = values.modes.split(',').map((raw) => {
    if (raw !== 'embedded' && raw !== 'uri')
      throw new Error(`--modes takes embedded and uri separated by commas, got "${raw}"`);
    return raw as Mode;
  });
  const owners = Number(values.owners);
  const results: Result[] = [];
  for (const deals of sizes) {
    const scratch = mkdtempSync(path.join(tmpdir(), 'pg-scale-'));
    try {
      const written = await writeHubSpotFiles(scratch, { deals, owners, now: NOW });
      const changed = path.join(scratch, 'changed.json');
      await writeChangedDeals(changed, {
        deals,
        owners,
        now: NOW,
        changed: Math.round(deals * 0.02),
        version: 1,
      });
      const files = { all: [written.pipelines, written.owners, ...written.deals], changed };
      console.error(`wrote the files of ${deals} deals (${mb(dirBytes(scratch))})`);
      for (const mode of modes) {
        const result = await measure(deals, mode, files, scratch);
        console.error(JSON.stringify(result));
        results.push(result);
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  print_(results);
}

function mb(bytes: number): string {
  return `${(bytes / MB).toFixed(0)} MB`;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
