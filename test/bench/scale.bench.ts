/**
 * The embedded store at scale: for each deal count, seeds the demo company with backfill
 * (`npm run seed`'s program) into a fresh data directory, then starts the gateway on it
 * (`npm start`'s program) and stops it. Prints, per size: the import's time and peak RSS, the
 * data directory's size, the documents stored, the gateway's start-up time (spawn to first
 * `/healthz` answer) and its RSS once up, and the same per stored document.
 *
 *   npm run bench:scale -- --deals 100000,300000
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';

/** The compiled tree this file runs from (dist/). */
const DIST = path.join(__dirname, '..', '..');
const PROBE = path.join(__dirname, 'scale-peak-rss.js');
const MB = 1024 * 1024;

interface SizeResult {
  deals: number;
  importSeconds: number;
  importPeakRss: number;
  dataDirBytes: number;
  documents: number;
  startSeconds: number;
  startRss: number;
  startPeakRss: number;
}

function dirBytes(dir: string): number {
  return readdirSync(dir).reduce((sum, name) => sum + statSync(path.join(dir, name)).size, 0);
}

/** The environment of a child: the embedded store in `dataDir`, whatever the caller's shell says. */
function childEnv(dataDir: string, extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...extra };
  delete env.MONGODB_URI;
  return env;
}

/** Runs a compiled program to its end; resolves with its wall time and peak RSS. */
function run(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ seconds: number; peakRss: number }> {
  const rssFile = path.join(env.DATA_DIR!, '..', `peak-rss-${process.pid}`);
  const started = performance.now();
  const child = spawn(process.execPath, ['--require', PROBE, path.join(DIST, script), ...args], {
    env: { ...env, SCALE_PEAK_RSS_FILE: rssFile },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${script} exited with code ${code}`));
      const peakRss = Number(readFileSync(rssFile, 'utf8'));
      rmSync(rssFile, { force: true });
      resolve({ seconds: (performance.now() - started) / 1000, peakRss });
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

/** RSS and peak RSS of a running process, from /proc (Linux). */
function rssOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** Starts the gateway on `dataDir`, waits for /healthz, measures, counts documents, stops it. */
async function startGateway(
  dataDir: string,
): Promise<{ seconds: number; rss: number; peakRss: number; documents: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(DIST, 'src/index.js')], {
    env: childEnv(dataDir, { PORT: String(port), SEED_DEMO: 'false' }),
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
    const { rss, peak } = rssOf(child.pid!);
    const client = new MongoClient(
      `mongodb://${encodeURIComponent(path.join(dataDir, 'mongod.sock'))}/?directConnection=true`,
    );
    try {
      const stats = await client.db('pipeline-gateway').stats();
      return { seconds, rss, peakRss: peak, documents: stats.objects as number };
    } finally {
      await client.close();
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

async function measure(deals: number): Promise<SizeResult> {
  const parent = mkdtempSync(path.join(tmpdir(), 'pg-scale-'));
  const dataDir = path.join(parent, 'data');
  try {
    const seeded = await run('src/cli/seed.js', ['--deals', String(deals)], childEnv(dataDir, {}));
    const dataDirBytes = dirBytes(dataDir);
    const start = await startGateway(dataDir);
    return {
      deals,
      importSeconds: seeded.seconds,
      importPeakRss: seeded.peakRss,
      dataDirBytes,
      documents: start.documents,
      startSeconds: start.seconds,
      startRss: start.rss,
      startPeakRss: start.peakRss,
    };
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}

function print(results: SizeResult[]): void {
  const mb = (bytes: number): string => `${(bytes / MB).toFixed(0)} MB`;
  const rows = [
    [
      'deals',
      'import',
      'import peak RSS',
      'data dir',
      'documents',
      'start-up',
      'RSS up',
      'peak RSS at start',
      'RSS/doc',
      'disk/doc',
    ],
    ...results.map((r) => [
      String(r.deals),
      `${r.importSeconds.toFixed(1)} s`,
      mb(r.importPeakRss),
      mb(r.dataDirBytes),
      String(r.documents),
      `${r.startSeconds.toFixed(1)} s`,
      mb(r.startRss),
      mb(r.startPeakRss),
      `${(r.startRss / r.documents).toFixed(0)} B`,
      `${(r.dataDirBytes / r.documents).toFixed(0)} B`,
    ]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  for (const row of rows) console.log(row.map((cell, i) => cell.padStart(widths[i])).join('  '));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { deals: { type: 'string', default: '100000,300000' } },
  });
  const sizes = values.deals.split(',').map((raw) => {
    if (!/^\d+$/.test(raw) || Number(raw) < 1)
      throw new Error(`--deals takes positive whole numbers separated by commas, got "${raw}"`);
    return Number(raw);
  });
  const results: SizeResult[] = [];
  for (const deals of sizes) {
    results.push(await measure(deals));
    console.error(`measured ${deals} deals`);
  }
  print(results);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
