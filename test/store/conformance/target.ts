import { MongoClient, type Db } from 'mongodb';
import { EmbeddedMongoServer } from '../../../src/store/server';

/**
 * Where the conformance suite runs: the embedded server (in memory) by default, or the MongoDB
 * at `MONGODB_URI` when set, so the same tests show the embedded store behaves like mongod.
 * Each test file gets its own database, dropped afterwards.
 */
export interface ConformanceTarget {
  uri: string;
  client: MongoClient;
  db: Db;
  dbName: string;
  /** The embedded server, or null against a real MongoDB. */
  embedded: EmbeddedMongoServer | null;
  /** Open server cursors right now. */
  openCursors(): Promise<number>;
  close(): Promise<void>;
}

export async function openTarget(tag: string): Promise<ConformanceTarget> {
  const external = process.env.MONGODB_URI;
  const embedded = external ? null : await EmbeddedMongoServer.start();
  const uri = external ?? embedded!.uri;
  const client = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 10_000 });
  const dbName = `conformance_${tag}_${process.pid}_${Date.now().toString(36)}`;
  const db = client.db(dbName);
  return {
    uri,
    client,
    db,
    dbName,
    embedded,
    async openCursors() {
      if (embedded) return embedded.openCursorCount();
      const status = await client.db('admin').command({ serverStatus: 1 });
      return Number(status.metrics.cursor.open.total);
    },
    async close() {
      await db.dropDatabase().catch(() => undefined);
      await client.close();
      await embedded?.stop();
    },
  };
}

/**
 * Registers the suite hooks for one test file: open the target before all, assert that no
 * cursor is left open after each test, close after all. Returns an accessor for the target.
 */
export function useTarget(tag: string): () => ConformanceTarget {
  let target: ConformanceTarget | undefined;
  let baseline = 0;
  beforeAll(async () => {
    target = await openTarget(tag);
    baseline = await target.openCursors();
  });
  afterEach(async () => {
    expect(await target!.openCursors()).toBe(baseline);
  });
  afterAll(async () => {
    await target?.close();
  });
  return () => {
    if (!target) throw new Error('conformance target used before beforeAll opened it');
    return target;
  };
}
