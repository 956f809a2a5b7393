import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectDatabase } from '../../src/db/connect-database';
import { CrmSyncStateModel, SYNC_STATE_ID } from '../../src/models/crm-sync-state.model';
import { CrmSyncModel } from '../../src/models/crm-sync.model';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { INTERRUPTED } from '../../src/sync/crm-sync';
import {
  startHubSpotServer,
  type HubSpotTestServer,
  type RecordedRequest,
} from '../../src/fake-crm/hubspot-server';
import { startSalesforceServer, type SalesforceTestServer } from '../helpers/salesforce-server';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  salesforceOpportunities,
  salesforceOrg,
} from './salesforce-dataset';
import { setStage, syncDataset, syncDeals, TOKEN } from './sync-dataset';

const ROOT = path.resolve(__dirname, '..', '..');
const LEASE_SECONDS = 3;

interface CliRun {
  child: ChildProcess;
  done: Promise<{
    status: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>;
}

/**
 * Starts `src/cli/sync.ts` as `npm run sync` runs it (from source), on its own embedded database;
 * asynchronously, since the HubSpot server it reads runs in this process.
 */
function startSync(dataDir: string, env: Record<string, string>, args: string[] = []): CliRun {
  const child = spawn(
    process.execPath,
    ['-r', './test/helpers/ts-register.js', 'src/cli/sync.ts', ...args],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        MONGODB_URI: '',
        LOG_LEVEL: 'silent',
        SYNC_LEASE_SECONDS: String(LEASE_SECONDS),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{
    status: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolve) => {
    child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
  return { child, done };
}

/** What the data directory holds, read with the gateway's models once no process uses it. */
async function stored(dataDir: string) {
  const database = await connectDatabase({ uri: '', dataDir });
  try {
    return {
      committed: (await SnapshotModel.find({ status: 'committed' }, { _id: 1 }).lean()).map(
        (s) => s._id,
      ),
      pending: await SnapshotModel.countDocuments({ status: 'pending' }),
      state: await CrmSyncStateModel.findById(SYNC_STATE_ID).lean(),
      runs: await CrmSyncModel.find().sort({ startedAt: 1 }).lean(),
    };
  } finally {
    await database.close();
  }
}

const readsDeals = (r: RecordedRequest) =>
  r.path === '/crm/v3/objects/deals/search' ||
  (r.path === '/crm/v3/objects/deals' && r.query.archived !== 'true');

describe('npm run sync', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sync-cli-'));
  const now = Date.now();
  let hubspot: HubSpotTestServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    hubspot = await startHubSpotServer({ token: TOKEN, dataset: syncDataset(syncDeals(30, now)) });
    env = { HUBSPOT_TOKEN: TOKEN, HUBSPOT_BASE_URL: hubspot.url };
  });
  afterAll(async () => {
    await hubspot?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits 3 saying to set HUBSPOT_TOKEN when it is unset', async () => {
    const run = await startSync(dataDir, { HUBSPOT_TOKEN: '' }).done;
    expect(run.status).toBe(3);
    expect(run.stderr).toContain(
      'Cannot sync from HubSpot: HUBSPOT_TOKEN is not set (docs/crm-sync.md says how)',
    );
  });

  it('syncs in full, printing what it read and the import summary', async () => {
    const run = await startSync(dataDir, env).done;
    expect(run.stderr).toContain('read from HubSpot: 30 deals');
    expect(run.stderr).toContain('writing snapshots: 100% (30/30)');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Full HubSpot sync \S+: read 30 deals\.\nImport committed\./);
    expect(run.stdout).toContain('  deals        30');
    expect(run.stdout).toContain('  compared     30 added, 0 changed, 0 unchanged, 0 removed');
  });

  it('exits 1 naming HubSpot authentication for a refused token, keeping nothing', async () => {
    const before = await stored(dataDir);
    const run = await startSync(dataDir, { ...env, HUBSPOT_TOKEN: 'pat-na1-wrong' }).done;
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /^Incremental HubSpot sync \S+ failed, nothing was kept: HubSpot authentication failed: HubSpot refused the token \(401/m,
    );
    expect(run.stderr).not.toContain('pat-na1-wrong');
    const after = await stored(dataDir);
    expect({ committed: after.committed, state: after.state }).toEqual({
      committed: before.committed,
      state: before.state,
    });
  });

  it('killed half-way (SIGKILL) leaves the previous snapshot; the next sync recovers and commits', async () => {
    const before = await stored(dataDir);
    expect(before.committed).toHaveLength(1);
    const deals = hubspot.dataset.deals;
    setStage(deals[0]!, 'closedwon', now, new Date(now).toISOString());

    // HubSpot holds the deal read until the process is gone.
    hubspot.fail({ delayMs: 30_000 }, { match: readsDeals });
    const held = hubspot.requests.length;
    const killed = startSync(dataDir, env);
    const deadline = Date.now() + 30_000;
    while (!hubspot.requests.slice(held).some(readsDeals)) {
      if (Date.now() > deadline) throw new Error('the sync never asked for the deals');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    killed.child.kill('SIGKILL');
    expect((await killed.done).signal).toBe('SIGKILL');

    const after = await stored(dataDir);
    expect(after.committed).toEqual(before.committed);
    expect(after.state?.highWaterMark).toEqual(before.state?.highWaterMark);
    expect(after.runs.at(-1)).toMatchObject({ status: 'running', trigger: 'cli' });

    // Its lease still holds for a moment: another sync is refused, then takes over once it expires.
    const refused = await startSync(dataDir, env).done;
    if (refused.status === 3)
      expect(refused.stderr).toMatch(
        /Sync refused: A CRM sync is already running: sync \S+ \(cli@/,
      );
    else expect(refused.status).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, LEASE_SECONDS * 1000));
    const next = refused.status === 0 ? refused : await startSync(dataDir, env).done;
    expect(next.status).toBe(0);
    // From the last committed mark: the killed sync moved nothing.
    expect(next.stdout).toMatch(
      /^Incremental HubSpot sync \S+: read \d+ deals\.\nImport committed\./,
    );
    expect(next.stdout).toMatch(/compared {5}0 added, 1 changed, \d+ unchanged, 0 removed/);

    const recovered = await stored(dataDir);
    expect(recovered.committed).toHaveLength(2);
    expect(recovered.pending).toBe(0);
    expect(recovered.state?.lease).toBeNull();
    expect(recovered.runs.find((r) => r._id === after.runs.at(-1)!._id)).toMatchObject({
      status: 'failed',
      error: INTERRUPTED,
    });
  });

  it('exits 0 committing nothing when nothing changed', async () => {
    const before = await stored(dataDir);
    const run = await startSync(dataDir, env).done;
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      /^Incremental HubSpot sync \S+: read \d+ deals\.\nNothing changed \(0 added, 0 changed, \d+ unchanged, 0 removed\): no snapshot committed; the latest, \S+, stands\./,
    );
    expect((await stored(dataDir)).committed).toEqual(before.committed);
  });
});

describe('npm run sync -- --provider salesforce', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sync-cli-sf-'));
  let salesforce: SalesforceTestServer;

  beforeAll(async () => {
    salesforce = await startSalesforceServer({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      org: salesforceOrg(salesforceOpportunities(20, Date.now())),
    });
  });
  afterAll(async () => {
    await salesforce?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits 3 naming the Salesforce settings when they are unset', async () => {
    const run = await startSync(dataDir, { HUBSPOT_TOKEN: TOKEN }, ['--provider', 'salesforce'])
      .done;
    expect(run.status).toBe(3);
    expect(run.stderr).toContain(
      'Cannot sync from Salesforce: SALESFORCE_CLIENT_ID and SALESFORCE_CLIENT_SECRET are not set',
    );
  });

  it('syncs the org in full, then incrementally', async () => {
    const env = {
      SALESFORCE_LOGIN_URL: salesforce.url,
      SALESFORCE_CLIENT_ID: CLIENT_ID,
      SALESFORCE_CLIENT_SECRET: CLIENT_SECRET,
    };
    const full = await startSync(dataDir, env, ['--provider', 'salesforce']).done;
    expect(full.stderr).not.toContain(CLIENT_SECRET);
    expect(full.status).toBe(0);
    expect(full.stdout).toMatch(/^Full Salesforce sync \S+: read 20 deals\.\nImport committed\./);
    const next = await startSync(dataDir, env, [
      '--provider',
      'salesforce',
      '--mode',
      'incremental',
    ]).done;
    expect(next.status).toBe(0);
    expect(next.stdout).toMatch(
      /^Incremental Salesforce sync \S+: read \d+ deals\.\nNothing changed/,
    );
  });
});
