import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { EJSON, ObjectId, type Document } from 'bson';
import { MongoClient } from 'mongodb';
import { EmbeddedMongoServer } from '../../../src/store/server';
import { FileJournal } from '../../../src/store/storage/file-journal';
import { tempDirs } from '../durability/journal-fixtures';
import { sendRaw } from './raw-connection';
import { hostileCommands, hostileFrames, type HostileCase } from './wire-frames';

/**
 * Hostile input over raw TCP. The server must answer an error or close that one connection, keep
 * serving everyone else (a driver client works throughout), and change no data.
 */
const dirs = tempDirs();
let server: EmbeddedMongoServer;
let client: MongoClient;
let dataDir: string;

/** Checksum of the guarded collection: every document, in _id order, as canonical Extended JSON. */
async function guardChecksum(): Promise<string> {
  const docs = await client.db('guard').collection('docs').find().sort({ _id: 1 }).toArray();
  return createHash('sha256')
    .update(EJSON.stringify(docs, { relaxed: false }))
    .digest('hex');
}

/** A driver client writing and reading beside the fuzzing, until stopped. */
function backgroundClient(): { stop(): Promise<{ writes: number; reads: number }> } {
  let running = true;
  let writes = 0;
  let reads = 0;
  const loop = (async () => {
    const live = client.db('live').collection('events');
    const guard = client.db('guard').collection('docs');
    while (running) {
      const _id = new ObjectId();
      await live.insertOne({ _id, n: writes });
      writes++;
      expect(await live.findOne({ _id })).toEqual({ _id, n: writes - 1 });
      expect(await guard.find({}, { projection: { _id: 1 } }).toArray()).toHaveLength(50);
      reads++;
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { writes, reads };
    },
  };
}

/** The properties every case must meet. */
async function check(c: HostileCase): Promise<void> {
  const outcome = await sendRaw(server.port, c.bytes);
  if (c.invalid) {
    // Certainly invalid bytes: only error replies (ok: 0), if any, before the close or probe.
    for (const reply of outcome.replies)
      expect({ kind: c.kind, ok: reply.doc.ok }).toEqual({ kind: c.kind, ok: 0 });
  }
  if (c.kind.startsWith('command ')) {
    // A well-framed command never costs the connection, whatever its arguments.
    expect({ kind: c.kind, closed: outcome.closed }).toEqual({ kind: c.kind, closed: false });
    expect(outcome.replies).toHaveLength(1);
    expect([0, 1]).toContain(outcome.replies[0].doc.ok);
    if (outcome.replies[0].doc.ok === 0) {
      expect(typeof outcome.replies[0].doc.errmsg).toBe('string');
      expect(typeof outcome.replies[0].doc.code).toBe('number');
    }
  }
}

beforeAll(async () => {
  dataDir = dirs.make();
  server = await EmbeddedMongoServer.start({ journal: new FileJournal(dataDir) });
  client = new MongoClient(server.uri, { maxPoolSize: 4 });
  const docs: Document[] = Array.from({ length: 50 }, (_, i) => ({
    _id: i,
    name: `doc-${i}`,
    nested: { list: [i, `${i}`] },
    at: new Date(i * 1000),
  }));
  await client.db('guard').collection('docs').insertMany(docs);
  await client.db('guard').collection('docs').createIndex({ name: 1 }, { unique: true });
});

afterAll(async () => {
  await client?.close();
  await server?.stop();
  dirs.cleanup();
});

describe('embedded server under hostile wire input', () => {
  it('answers errors or closes the connection, keeps serving others, and changes no data', async () => {
    const before = await guardChecksum();
    const background = backgroundClient();
    await fc.assert(fc.asyncProperty(hostileFrames, check), { numRuns: 800 });
    await fc.assert(fc.asyncProperty(hostileCommands, check), { numRuns: 400 });
    const { writes, reads } = await background.stop();
    expect(writes).toBeGreaterThan(0);
    expect(reads).toBeGreaterThan(0);
    expect(await guardChecksum()).toBe(before);
    expect(await client.db('live').collection('events').find().toArray()).toHaveLength(writes);
    // The server still answers a fresh connection normally.
    const fresh = new MongoClient(server.uri);
    expect(await fresh.db('admin').command({ ping: 1 })).toEqual({ ok: 1 });
    await fresh.close();
    expect(server.openCursorCount()).toBe(0);
    // And what is on disk is what was there: restart on the same directory and compare again.
    await client.close();
    await server.stop();
    server = await EmbeddedMongoServer.start({ journal: new FileJournal(dataDir) });
    client = new MongoClient(server.uri, { maxPoolSize: 4 });
    expect(await guardChecksum()).toBe(before);
    expect(await client.db('live').collection('events').find().toArray()).toHaveLength(writes);
  });

  it('generates every kind of hostile frame', () => {
    // The generators reach every kind (a guard against a generator silently never firing).
    const kinds = new Set(fc.sample(hostileFrames, { numRuns: 2000, seed: 1 }).map((c) => c.kind));
    expect([...kinds].sort()).toEqual([
      'bad document sequence',
      'garbage bytes',
      'invalid BSON',
      'truncated frame',
      'unknown opcode',
      'unknown required flag',
      'valid frames then garbage',
      'wrong message length',
      'wrong section kind',
    ]);
  });
});
