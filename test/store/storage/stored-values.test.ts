import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BSON, DBRef, Double, Int32, Long, type Document } from 'bson';
import { MongoClient } from 'mongodb';
import { EmbeddedMongoServer } from '../../../src/store/server';
import { FileJournal } from '../../../src/store/storage/file-journal';
import { encodeFileHeader, encodeRecord } from '../../../src/store/storage/journal/frame';
import type { Mutation } from '../../../src/store/storage/mutation';
import { deserializeStored } from '../../../src/store/storage/stored-values';
import { tempDirs } from '../durability/journal-fixtures';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const RAW = { promoteValues: false, promoteLongs: false } as const;
const typeOf = (v: unknown): string =>
  typeof v === 'number' ? 'number' : (v as { _bsontype: string })._bsontype;

/** A document as the wire hands it over: BSON with explicit types, decoded by the store. */
const numbers = (): Document =>
  deserializeStored(
    BSON.serialize({
      _id: 1,
      i: new Int32(5),
      l: Long.fromNumber(5),
      one: new Double(1),
      f: 2.5,
      big: Long.fromString('-9223372036854775808'),
      list: [new Double(0), Long.fromNumber(1)],
    }),
  );

async function readBack(dir: string): Promise<Mutation[]> {
  const journal = new FileJournal(dir);
  const mutations = await journal.open();
  await journal.close();
  return mutations;
}

describe('numeric BSON types in memory and on disk', () => {
  it('holds Int32 and non-integral doubles as numbers, integral Doubles and every Long as their classes', () => {
    const doc = numbers();
    expect([doc.i, doc.l, doc.one, doc.f, doc.big].map(typeOf)).toEqual([
      'number',
      'Long',
      'Double',
      'number',
      'Long',
    ]);
    expect(doc.list.map(typeOf)).toEqual(['Double', 'Long']);
    expect(Buffer.from(BSON.serialize(doc)).equals(Buffer.from(BSON.serialize(numbers())))).toBe(
      true,
    );
  });

  it('holds a DBRef as its plain document, which serialises to the same bytes', () => {
    const bytes = BSON.serialize({ _id: 1, ref: new DBRef('users', new Int32(3) as never, 'app') });
    const doc = deserializeStored(bytes);
    expect(doc.ref).toEqual({ $ref: 'users', $id: 3, $db: 'app' });
    expect(Buffer.from(BSON.serialize(doc)).equals(Buffer.from(bytes))).toBe(true);
  });

  it('keeps the types through the log and through a compacted snapshot', async () => {
    const dir = dirs.make();
    const journal = new FileJournal(dir);
    await journal.open();
    const written: Mutation = { op: 'insert', ns: 'app.values', docs: [numbers()] };
    journal.append([written]);
    await journal.sync();
    await journal.close();
    const fromLog = await readBack(dir);
    expect(fromLog).toEqual([written]);

    const again = new FileJournal(dir);
    await again.open();
    await again.compact(() => [written]);
    await again.close();
    const fromSnapshot = (await readBack(dir)) as Array<Extract<Mutation, { op: 'insert' }>>;
    const doc = fromSnapshot[0].docs[0];
    expect([doc.i, doc.l, doc.one, doc.f, doc.big].map(typeOf)).toEqual([
      'number',
      'Long',
      'Double',
      'number',
      'Long',
    ]);
    expect(Buffer.from(BSON.serialize(doc)).equals(Buffer.from(BSON.serialize(numbers())))).toBe(
      true,
    );
  });

  it('loads a data file written when the store held every safe number as a JS number', async () => {
    // What the store wrote then: a small Long and a Double 1.0 had become int32s, a Long of 2^40
    // a double (a JS number's own serialisation); the file format is unchanged.
    const dir = dirs.make();
    mkdirSync(dir, { recursive: true });
    const payload = Buffer.concat([
      BSON.serialize({ op: 'insert', ns: 'app.old', n: 1 }),
      BSON.serialize({ _id: 1, l: 5, one: 1, big: 2 ** 40, f: 2.5 }),
    ]);
    writeFileSync(
      join(dir, 'journal-0000000000.log'),
      Buffer.concat([encodeFileHeader('log', 0), encodeRecord(payload)]),
      { mode: 0o600 },
    );

    const server = await EmbeddedMongoServer.start({ journal: new FileJournal(dir) });
    const client = await MongoClient.connect(server.uri);
    try {
      const old = client.db('app').collection<{ _id: number } & Document>('old');
      const found = await old.findOne(
        { l: 5, one: new Double(1), big: Long.fromNumber(2 ** 40) },
        RAW,
      );
      expect(found && [found.l, found.one, found.big, found.f].map(typeOf)).toEqual([
        'Int32',
        'Int32',
        'Double',
        'Double',
      ]);
      await old.updateOne({ _id: 1 }, { $inc: { l: Long.fromNumber(1) } });
      expect((await old.findOne({ _id: 1 }, RAW))!.l).toEqual(Long.fromNumber(6));
    } finally {
      await client.close();
      await server.stop();
    }
  });
});
