import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { MongoClient, ObjectId } from 'mongodb';
import { EmbeddedMongoServer } from '../../../src/store/server';
import { FileJournal, type CompactionStep } from '../../../src/store/storage/file-journal';
import { contentChecksum } from './checksum';
import { tempDirs } from './journal-fixtures';

/**
 * Kills a server that is busy writing, at random moments and at each compaction step, then checks
 * on restart that every write it acknowledged is there, intact, and that writing goes on.
 */
const dirs = tempDirs();
afterAll(() => dirs.cleanup());

const ROOT = join(__dirname, '../../..');

interface Acked {
  version: number;
  sum: string;
}

interface Round {
  /** Writes acknowledged by the child before it died: _id → latest acknowledged version. */
  acked: Map<string, Acked>;
  /** The compaction step the child killed itself after, if any. */
  step?: string;
}

/**
 * Runs the writer child on `dir` until it has acknowledged `killAfterAcks` writes (then SIGKILL)
 * or until it kills itself at a compaction step.
 */
function runWriter(
  dir: string,
  env: Record<string, string>,
  killAfterAcks: number,
  acked: Map<string, Acked>,
): Promise<Round> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(
      process.execPath,
      ['-r', './test/helpers/ts-register.js', './test/store/durability/crash-writer.ts', dir],
      { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    let count = 0;
    const round: Round = { acked };
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const [tag, ...rest] = line.split(' ');
      if (tag === 'ACK') {
        const [id, version, sum] = rest;
        acked.set(id, { version: Number(version), sum });
        count++;
        if (count === killAfterAcks) child.kill('SIGKILL');
      } else if (tag === 'STEP') {
        round.step = rest[0];
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(round);
      else reject(new Error(`writer exited with code ${code} before being killed:\n${stderr}`));
    });
  });
}

/** Restarts the server on `dir` (taking over the dead child's lock) and checks every acknowledged write. */
async function verify(dir: string, acked: Map<string, Acked>): Promise<void> {
  const server = await EmbeddedMongoServer.start({ journal: new FileJournal(dir) });
  const client = new MongoClient(server.uri);
  try {
    const docs = client.db('crash').collection('docs');
    const stored = new Map(
      (await docs.find().toArray()).map((doc) => [doc._id.toHexString(), doc]),
    );
    const missing: string[] = [];
    const damaged: string[] = [];
    for (const [id, { version, sum }] of acked) {
      const doc = stored.get(id);
      if (!doc) {
        missing.push(id);
        continue;
      }
      // Intact: the content matches the checksum it was written with, and it is the acknowledged
      // version or a later one (an update in flight at the kill may have made it to disk).
      if (
        doc.sum !== contentChecksum(doc) ||
        doc.version < version ||
        (doc.version === version && doc.sum !== sum)
      ) {
        damaged.push(id);
      }
    }
    expect({ missing, damaged }).toEqual({ missing: [], damaged: [] });
    for (const doc of stored.values()) expect(doc.sum).toBe(contentChecksum(doc));
    // The restarted server takes new writes.
    const fresh = new ObjectId();
    await docs.insertOne({ _id: fresh, after: 'restart' });
    expect(await docs.findOne({ _id: fresh })).toEqual({ _id: fresh, after: 'restart' });
    await docs.deleteOne({ _id: fresh });
  } finally {
    await client.close();
    await server.stop();
  }
}

describe('crash durability of the embedded server', () => {
  it('keeps every acknowledged write across repeated SIGKILLs at random moments', async () => {
    const dir = dirs.make();
    const acked = new Map<string, Acked>();
    for (let round = 0; round < 5; round++) {
      // Rounds 2 and 4 compact every ~64 KB of log, so kills also land inside compactions.
      const env: Record<string, string> =
        round % 2 === 1 ? { COMPACT_AT_BYTES: String(64 * 1024) } : {};
      await runWriter(dir, env, randomInt(20, 400), acked);
      await verify(dir, acked);
    }
    expect(acked.size).toBeGreaterThan(100);
  }, 300_000); // five child processes on a shared machine: generous, not a timing assertion

  const steps: CompactionStep[] = [
    'snapshot-written',
    'log-installed',
    'snapshot-installed',
    'switched',
  ];
  it('keeps every acknowledged write when killed right after each compaction step', async () => {
    const dir = dirs.make();
    const acked = new Map<string, Acked>();
    for (const step of steps) {
      const round = await runWriter(
        dir,
        { COMPACT_AT_BYTES: String(32 * 1024), CRASH_AT_STEP: step },
        -1,
        acked,
      );
      expect(round.step).toBe(step);
      await verify(dir, acked);
      // One consistent generation is left after recovery (its snapshot and log, nothing else).
      const files = readdirSync(dir).filter((name) => name !== 'mongod.lock');
      expect(files.filter((name) => name.endsWith('.tmp'))).toEqual([]);
      expect(files.filter((name) => name.startsWith('journal-'))).toHaveLength(1);
    }
  }, 300_000);
});
