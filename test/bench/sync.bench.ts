/**
 * A CRM sync at scale, for each connector: a test CRM server holding `--deals` deals runs in this
 * process (HubSpot: src/fake-crm/hubspot-server.ts; Salesforce: test/helpers/salesforce-server.ts),
 * the gateway in its own (`npm start`'s program, on a fresh embedded data directory, or with
 * `--db uri` by MONGODB_URI on the store run as its own process, as `npm run db` runs it). The
 * bench starts one full sync with POST /crm/syncs, follows it to its end, and prints the deals read
 * per second and the gateway's peak RSS (the kernel's VmHWM, read before the gateway stops)
 * against the 600 MB the sync should stay under.
 *
 *   npm run bench:sync -- --deals 300000 --providers hubspot,salesforce --db embedded,uri
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startHubSpotServer } from '../../src/fake-crm/hubspot-server';
import { startStore, stop } from './history-processes';
import { startSalesforceServer } from '../helpers/salesforce-server';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  salesforceOpportunities,
  salesforceOrg,
} from '../sync/salesforce-dataset';
import { syncDataset, syncDeals, TOKEN } from '../sync/sync-dataset';

/** The compiled tree this file runs from (dist/). */
const DIST = path.join(__dirname, '..', '..');
const MB = 1024 * 1024;
const RSS_LIMIT = 600 * MB;

type Provider = 'hubspot' | 'salesforce';
type Db = 'embedded' | 'uri';

interface Result {
  provider: Provider;
  db: Db;
  deals: number;
  seconds: number;
  status: string;
  peakRss: number;
  error: string | null;
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

/** Peak RSS of a running process so far, from /proc (Linux). */
function peakRssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN) * 1024;
}

/** A CRM server holding `deals` deals, and the gateway settings that point at it. */
async function crmServer(
  provider: Provider,
  deals: number,
): Promise<{ env: Record<string, string>; close: () => Promise<void> }> {
  const now = Date.now();
  if (provider === 'hubspot') {
    const server = await startHubSpotServer({
      token: TOKEN,
      dataset: syncDataset(syncDeals(deals, now, now - deals * 60_000)),
    });
    return {
      env: { CRM_PROVIDER: 'hubspot', HUBSPOT_TOKEN: TOKEN, HUBSPOT_BASE_URL: server.url },
      close: () => server.close(),
    };
  }
  const server = await startSalesforceServer({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    org: salesforceOrg(salesforceOpportunities(deals, now, {}, now - deals * 1000)),
  });
  return {
    env: {
      CRM_PROVIDER: 'salesforce',
      SALESFORCE_LOGIN_URL: server.url,
      SALESFORCE_CLIENT_ID: CLIENT_ID,
      SALESFORCE_CLIENT_SECRET: CLIENT_SECRET,
    },
    close: () => server.close(),
  };
}

async function measure(provider: Provider, db: Db, deals: number): Promise<Result> {
  const crm = await crmServer(provider, deals);
  const parent = mkdtempSync(path.join(tmpdir(), 'pg-sync-bench-'));
  const store =
    db === 'uri' ? await startStore(path.join(parent, 'store'), await freePort()) : null;
  const port = await freePort();
  const adminToken = randomBytes(24).toString('hex');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...crm.env,
    DATA_DIR: path.join(parent, 'data'),
    PORT: String(port),
    SEED_DEMO: 'false',
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'warn',
  };
  if (store) env.MONGODB_URI = store.uri;
  else delete env.MONGODB_URI;
  const child = spawn(process.execPath, [path.join(DIST, 'src/index.js')], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const base = `http://127.0.0.1:${port}`;
  const headers = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the gateway exited with ${child.exitCode}`);
      const up = await fetch(`${base}/healthz`).then(
        (res) => res.ok,
        () => false,
      );
      if (up) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const started = performance.now();
    const answer = await fetch(`${base}/crm/syncs`, { method: 'POST', headers, body: '{}' });
    if (answer.status !== 202) throw new Error(`POST /crm/syncs answered ${answer.status}`);
    const location = answer.headers.get('location')!;
    let sync: { status: string; error: string | null; progress: { deals_read: number } };
    let peakRss = 0;
    for (let failures = 0; ;) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      peakRss = Math.max(peakRss, peakRssOf(child.pid!));
      let followed: { sync: typeof sync };
      try {
        followed = (await (await fetch(`${base}${location}`, { headers })).json()) as {
          sync: typeof sync;
        };
      } catch (error) {
        // A kept-alive connection the gateway closed as the poll reused it: ask again.
        if (child.exitCode !== null || ++failures > 20) throw error;
        continue;
      }
      sync = followed.sync;
      if (sync.status !== 'running') break;
    }
    return {
      provider,
      db,
      deals: sync.progress.deals_read,
      seconds: (performance.now() - started) / 1000,
      status: sync.status,
      peakRss: Math.max(peakRss, peakRssOf(child.pid!)),
      error: sync.error,
    };
  } finally {
    child.kill('SIGTERM');
    await exited;
    if (store) await stop(store.child);
    await crm.close();
    rmSync(parent, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      deals: { type: 'string', default: '300000' },
      providers: { type: 'string', default: 'hubspot,salesforce' },
      db: { type: 'string', default: 'embedded' },
    },
  });
  const deals = Number(values.deals);
  if (!Number.isInteger(deals) || deals < 1) throw new Error('--deals must be a whole number');
  const providers = values.providers!.split(',') as Provider[];
  const dbs = values.db!.split(',') as Db[];
  for (const db of dbs)
    if (db !== 'embedded' && db !== 'uri') throw new Error(`--db: embedded or uri, got ${db}`);
  for (const provider of providers) {
    if (provider !== 'hubspot' && provider !== 'salesforce')
      throw new Error(`--providers: hubspot or salesforce, got ${provider}`);
  }
  for (const db of dbs)
    for (const provider of providers) report(await measure(provider, db, deals));
}

function report(r: Result): void {
  const rate = r.deals / r.seconds;
  console.log(
    `${r.provider.padEnd(10)} ${r.db.padEnd(8)} ${String(r.deals).padStart(7)} deals  ` +
      `${r.seconds.toFixed(1).padStart(7)} s  ${rate.toFixed(0).padStart(6)} deals/s  ` +
      `peak RSS ${(r.peakRss / MB).toFixed(0)} MB (${r.peakRss < RSS_LIMIT ? 'under' : 'OVER'} 600 MB)  ` +
      `${r.status}${r.error ? `: ${r.error}` : ''}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
