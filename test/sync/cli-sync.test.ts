import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectDatabase } from '../../src/db/connect-database';
import { CrmSyncStateModel } from '../../src/models/crm-sync-state.model';
import { CrmSyncModel } from '../../src/models/crm-sync.model';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { INTERRUPTED } from '../../src/sync/crm-sync';
import {
  startHubSpotServer,
  type HubSpotTestServer,
  type RecordedRequest,
} from '../../src/fake-crm/hubspot-server';
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
function startSync(dataDir: string, env: Record<string, string>): CliRun {
  const child = spawn(
    process.execPath,
    ['-r', './test/helpers/ts-register.js', 'src/cli/sync.ts'],
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
      state: await CrmSyncStateModel.findById('hubspot').lean(),
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
    expect(run.stderr).toContain('Cannot sync: HUBSPOT_TOKEN is not set');
  });

  it('syncs in full, printing what it read and the import summary', async () => {
    const run = await startSync(dataDir, env).done;
    expect(run.stderr).toContain('read from HubSpot: 30 deals');
    expect(run.stderr).toContain('writing snapshots: 100% (30/30)');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Full sync \S+: read 30 deals from HubSpot\.\nImport committed\./);
    expect(run.stdout).toContain('  deals        30');
  });

  it('exits 1 naming HubSpot authentication for a refused token, keeping nothing', async () => {
    const before = await stored(dataDir);
    const run = await startSync(dataDir, { ...env, HUBSPOT_TOKEN: 'pat-na1-wrong' }).done;
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      'Sync failed, nothing was kept: HubSpot authentication failed: HubSpot refused the token (401',
    );
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
    expect(after.runs.at(-1)).toMatchObject({ outcome: 'running', trigger: 'cli' });

    // Its lease still holds for a moment: another sync is refused, then takes over once it expires.
    const refused = await startSync(dataDir, env).done;
    if (refused.status === 3)
      expect(refused.stderr).toContain('Sync refused: A HubSpot sync is already running (cli@');
    else expect(refused.status).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, LEASE_SECONDS * 1000));
    const next = refused.status === 0 ? refused : await startSync(dataDir, env).done;
    expect(next.status).toBe(0);
    // From the last committed mark: the killed sync moved nothing.
    expect(next.stdout).toMatch(
      /^Incremental sync \S+: read \d+ deals changed and 0 archived from HubSpot\.\nImport committed\./,
    );

    const recovered = await stored(dataDir);
    expect(recovered.committed).toHaveLength(2);
    expect(recovered.pending).toBe(0);
    expect(recovered.state?.lease).toBeNull();
    expect(recovered.runs.find((r) => r._id === after.runs.at(-1)!._id)).toMatchObject({
      outcome: 'failed',
      error: INTERRUPTED,
    });
  });
});
