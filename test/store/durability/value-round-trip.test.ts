import {
  Binary,
  BSON,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
  type Document,
} from 'bson';
import { MongoClient } from 'mongodb';
import { EmbeddedMongoServer } from '../../../src/store/server';
import { FileJournal } from '../../../src/store/storage/file-journal';
import { tempDirs } from './journal-fixtures';

/**
 * Values written through the driver come back with the same BSON types and bytes after a restart
 * (the journal replays them), read with every promotion off so nothing is hidden by the driver.
 */
const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const RAW_READ = {
  promoteValues: false,
  promoteLongs: false,
  promoteBuffers: false,
  bsonRegExp: true,
} as const;

async function withServer<T>(dir: string, fn: (client: MongoClient) => Promise<T>): Promise<T> {
  const server = await EmbeddedMongoServer.start({ journal: new FileJournal(dir) });
  const client = new MongoClient(server.uri);
  try {
    return await fn(client);
  } finally {
    await client.close();
    await server.stop();
  }
}

/** Writes `doc`, restarts on the same directory, and returns the stored document's BSON bytes. */
async function storedBytesAfterRestart(doc: Document): Promise<Buffer> {
  const dir = dirs.make();
  await withServer(dir, (client) => client.db('rt').collection('values').insertOne(doc));
  return withServer(dir, async (client) => {
    // raw: the document's bytes exactly as the server sent them, untouched by the driver.
    const found = await client
      .db('rt')
      .collection('values')
      .findOne({ _id: doc._id }, { raw: true });
    if (!found) throw new Error(`document ${String(doc._id)} not found after the restart`);
    return Buffer.from(found as unknown as Uint8Array);
  });
}

const bytes = (doc: Document): Buffer => Buffer.from(BSON.serialize(doc));

describe('BSON values through the store and a restart', () => {
  it('keeps ObjectId, Date, Decimal128, unsafe Long, Binary, Timestamp, nested arrays, null vs missing', async () => {
    const doc = {
      _id: new ObjectId(),
      when: new Date(Date.UTC(2026, 10, 21, 12, 0, 0, 123)),
      price: Decimal128.fromString('-1234567890.0987654321'),
      big: Long.fromString('-9223372036854775808'),
      bin: new Binary(Buffer.from([0, 255, 1, 254]), 0),
      uuid: new Binary(Buffer.alloc(16, 0xab), 4),
      ts: new Timestamp({ t: 1_763_000_000, i: 7 }),
      nested: [[1, [2, [3, [null]]]], { deep: [{ a: null }] }, []],
      nothing: null,
      text: 'ünïcødé ✓ \u0000 inside',
      ratio: new Double(0.1),
      small: new Int32(-5),
      min: new MinKey(),
      max: new MaxKey(),
    };
    const stored = await storedBytesAfterRestart(doc);
    expect(stored.equals(bytes(doc))).toBe(true);
    const back = BSON.deserialize(stored, RAW_READ);
    expect('missing' in back).toBe(false);
    expect(back.nothing).toBeNull();
  });

  // Neither fits a JS number's own serialisation: 1.0 would go back as an int32, 5 as an int32.
  it('keeps a Double holding an integral value a Double', async () => {
    const doc = { _id: 1, d: new Double(1) };
    expect((await storedBytesAfterRestart(doc)).equals(bytes(doc))).toBe(true);
  });

  it('keeps a small Long a Long', async () => {
    const doc = { _id: 2, l: Long.fromNumber(5) };
    expect((await storedBytesAfterRestart(doc)).equals(bytes(doc))).toBe(true);
  });
});
