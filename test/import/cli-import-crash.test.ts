import { trusted } from 'mongoose';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectDatabase } from '../../src/db/connect-database';
import { OPEN_SEQ, OpportunityModel } from '../../src/models/opportunity.model';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { seedDemoIfEmpty } from '../../src/seed/seed-demo';
import { opportunitiesOf } from '../helpers/opportunities-of';
import { fixturePath } from './fixtures';

/**
 * SIGKILL in the middle of an incremental import (npm run import on an embedded data directory):
 * the previous snapshot reads as before, the next start leaves nothing of the killed import, and
 * the next import works.
 */

const ROOT = path.resolve(__dirname, '..', '..');
const DEALS = 20_000;
const CLI = ['-r', './test/helpers/ts-register.js', 'src/cli/import.ts'];
const env = (dataDir: string) => ({
  ...process.env,
  DATA_DIR: dataDir,
  MONGODB_URI: '',
  LOG_LEVEL: 'silent',
});

function runImport(args: string[], dataDir: string) {
  const result = spawnSync(process.execPath, [...CLI, ...args], {
    cwd: ROOT,
    env: env(dataDir),
    encoding: 'utf8',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Starts the import and SIGKILLs it on the first progress line showing opportunities written. */
function killMidImport(
  args: string[],
  dataDir: string,
): Promise<{ signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: ROOT, env: env(dataDir) });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (/writing snapshots: [1-9]\d*%/.test(stderr)) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', (_code, signal) => resolve({ signal, stderr }));
  });
}

function deals(amount: (i: number) => number) {
  return {
    results: Array.from({ length: DEALS }, (_, i) => ({
      id: `g${i}`,
      properties: {
        hs_object_id: `g${i}`,
        dealname: `Deal ${i}`,
        createdate: '2025-01-15T10:00:00.000Z',
        closedate: '2026-03-01T00:00:00.000Z',
        amount: String(amount(i)),
        pipeline: 'default',
        dealstage: 'appointmentscheduled',
        hubspot_owner_id: '101',
      },
    })),
  };
}

/** Runs `work` on the data directory, opened in this process (no import running). */
async function onDataDir<T>(
  dataDir: string,
  work: (database: Awaited<ReturnType<typeof connectDatabase>>) => Promise<T>,
): Promise<T> {
  const database = await connectDatabase({ uri: '', dataDir });
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

describe('an import killed half-way', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'import-crash-'));
  const dataDir = path.join(dir, 'data');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves the previous snapshot intact, the next start clean and the next import working', async () => {
    const full = path.join(dir, 'deals.json');
    writeFileSync(full, JSON.stringify(deals((i) => 100 + i)));
    const first = runImport(
      [fixturePath('messy/pipelines.json'), fixturePath('messy/owners.json'), full],
      dataDir,
    );
    expect(first.status).toBe(0);
    const previous = /snapshot {5}(\S+)/.exec(first.stdout)![1];
    const before = await onDataDir(dataDir, () => opportunitiesOf(previous));
    expect(before).toHaveLength(DEALS);

    // Every deal changed: the import closes every version, then writes new ones in batches.
    const changed = path.join(dir, 'changed.json');
    writeFileSync(changed, JSON.stringify(deals((i) => 200 + i)));
    const killed = await killMidImport(['--incremental', changed], dataDir);
    expect(killed.signal).toBe('SIGKILL');

    await onDataDir(dataDir, async (database) => {
      const committed = await SnapshotModel.findById(previous).lean();
      const pending = await SnapshotModel.find({ status: 'pending' }).lean();
      expect(pending).toHaveLength(1);
      expect(pending[0].seq).toBeGreaterThan(committed!.seq);
      // Killed half-way: versions of the killed import exist, yet the previous snapshot reads as before.
      expect(await OpportunityModel.countDocuments({ fromSeq: pending[0].seq })).toBeGreaterThan(0);
      expect(await opportunitiesOf(previous)).toEqual(before);

      // The next start: nothing of the killed import is left.
      expect(
        await seedDemoIfEmpty(database.connection, { shared: false, seedDemo: false }),
      ).toBeNull();
      expect(await SnapshotModel.countDocuments({ status: 'pending' })).toBe(0);
      expect(await OpportunityModel.countDocuments({ fromSeq: pending[0].seq })).toBe(0);
      expect(await OpportunityModel.countDocuments({ toSeq: trusted({ $ne: OPEN_SEQ }) })).toBe(0);
      expect(await OpportunityModel.countDocuments()).toBe(DEALS);
      expect(await opportunitiesOf(previous)).toEqual(before);
    });

    const again = runImport(['--incremental', changed], dataDir);
    expect(again.status).toBe(0);
    const next = /snapshot {5}(\S+)/.exec(again.stdout)![1];
    await onDataDir(dataDir, async () => {
      expect(await opportunitiesOf(previous)).toEqual(before);
      expect((await opportunitiesOf(next)).map((o) => o.amount)).toEqual(
        before.map((o) => o.amount + 100),
      );
    });
  }, 360_000);
});
