/**
 * A process SIGKILLed at each point of writing a change and its event: the change committed has
 * exactly one event once the sweep (every instance runs it) has looked, and a change that did not
 * commit has none. The child makes the change through the services on a database of its own (an
 * embedded data directory, or in uri mode a database on the shared store process) and kills itself
 * at the point (test/events/support/crash-child.ts); this process then opens the same database.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectDatabase, type Database } from '../../src/db/connect-database';
import { sweepOutbox, PENDING_DELETION_GRACE_MS } from '../../src/events/outbox/sweep';
import { publishSnapshotEvents } from '../../src/events/snapshot-events';
import { EventModel, type EventDoc } from '../../src/models/event.model';
import { MemberModel } from '../../src/models/member.model';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { testStoreUri, uniqueDatabaseName } from '../helpers/database-mode';
import { withDatabase } from '../helpers/store-process';

const ROOT = path.resolve(__dirname, '..', '..');

interface Place {
  env: Record<string, string>;
  open(): Promise<Database>;
  cleanUp(): void;
}

/** A database of its own for one crash: a data directory, or a database on the shared store. */
function newPlace(): Place {
  const storeUri = testStoreUri();
  if (storeUri !== null) {
    const uri = withDatabase(storeUri, uniqueDatabaseName());
    return {
      env: { CRASH_URI: uri },
      open: () => connectDatabase({ uri }),
      cleanUp: () => undefined,
    };
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'outbox-crash-'));
  return {
    env: { CRASH_DATA_DIR: dataDir },
    open: () => connectDatabase({ dataDir, uri: '' }),
    cleanUp: () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

/** Runs the child to `point`; resolves with what it printed once it was killed. */
function crashAt(point: string, place: Place): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['-r', './test/helpers/ts-register.js', 'test/events/support/crash-child.ts', point],
      { cwd: ROOT, env: { ...process.env, ...place.env, MONGODB_URI: '' } },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(output);
      else reject(new Error(`the child exited with ${code} instead of being killed:\n${output}`));
    });
  });
}

/** After the crash: the sweep (past the pending deletions' grace) and the snapshots' publication, twice. */
async function recover(database: Database): Promise<EventDoc[]> {
  for (let round = 0; round < 2; round += 1) {
    await sweepOutbox(database.connection, Date.now() + PENDING_DELETION_GRACE_MS + 1000);
    await publishSnapshotEvents(async () => []);
  }
  return EventModel.find().sort({ seq: 1 }).lean<EventDoc[]>();
}

async function afterCrash(
  point: string,
  check: (events: EventDoc[], output: string) => Promise<void>,
): Promise<void> {
  const place = newPlace();
  try {
    const output = await crashAt(point, place);
    const database = await place.open();
    try {
      await check(await recover(database), output);
    } finally {
      await database.close();
    }
  } finally {
    place.cleanUp();
  }
}

it('publishes the event of a change written before the process could publish it', async () => {
  await afterCrash('after-write', async (events) => {
    expect(events.map((e) => e.type)).toEqual(['member.created']);
    expect(events[0].seq).not.toBeNull();
    const member = await MemberModel.findOne({ email: 'kim.killed@example.com' }).lean();
    expect(events[0].data.member_id).toBe(member!._id);
    expect((member as { outbox?: unknown[] }).outbox ?? []).toHaveLength(0);
  });
}, 60_000);

it('keeps one event of a change whose event was published before the process died', async () => {
  await afterCrash('after-publish', async (events) => {
    expect(events.map((e) => e.type)).toEqual(['member.created']);
  });
}, 60_000);

it('drops the event of a deletion the process died before making', async () => {
  await afterCrash('before-delete', async (events, output) => {
    const id = /member (\S+)/.exec(output)![1];
    expect(await MemberModel.exists({ _id: id })).toBeTruthy();
    expect(events.map((e) => e.type)).toEqual(['member.created']);
  });
}, 60_000);

it('confirms the event of a deletion the process died after making', async () => {
  await afterCrash('after-delete', async (events, output) => {
    const id = /member (\S+)/.exec(output)![1];
    expect(await MemberModel.exists({ _id: id })).toBeNull();
    expect(events.map((e) => [e.type, e.data.member_id])).toEqual([
      ['member.created', id],
      ['member.deleted', id],
    ]);
    expect(events.every((e) => e.seq !== null)).toBe(true);
  });
}, 60_000);

it('publishes the commit of an import once no gateway was there to publish it', async () => {
  await afterCrash('after-commit', async (events) => {
    const [snapshot] = await SnapshotModel.find({ status: 'committed', backfilled: false }).lean();
    expect(events.map((e) => [e.type, e.data.snapshot_id])).toEqual([
      ['snapshot.committed', snapshot._id],
    ]);
  });
}, 60_000);
