import { serialize, type Document } from 'bson';
import { canonicalKey } from '../../../src/store/storage/canonical-key';
import { Catalog } from '../../../src/store/storage/catalog';
import { FileJournal } from '../../../src/store/storage/file-journal';
import type { Mutation } from '../../../src/store/storage/mutation';
import { richDoc, tempDirs } from './journal-fixtures';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const bson = (docs: Iterable<Document>): string[] =>
  [...docs].map((d) => Buffer.from(serialize(d)).toString('hex'));
const EMAIL_INDEX = { v: 2, key: { email: 1 }, name: 'email_1' };
const insert = (ns: string, docs: Document[]): Mutation => ({ op: 'insert', ns, docs });

/** A data directory with a snapshot of `db.a` and `db.b`, then a log replacing and deleting in `db.a`. */
async function dataDirectory(): Promise<{ dir: string; a: Document[]; b: Document[] }> {
  const dir = dirs.make();
  const journal = new FileJournal(dir);
  const catalog = await Catalog.open(journal);
  const people = Array.from({ length: 5 }, (_, i) => ({ _id: i, email: `p${i}@x` }));
  const rich = Array.from({ length: 3 }, (_, i) => richDoc(i));
  await catalog.commit([
    { op: 'createIndexes', ns: 'db.a', specs: [EMAIL_INDEX] },
    insert('db.a', people),
    insert('db.b', rich),
  ]);
  await journal.compact(() => catalog.snapshotMutations());
  await catalog.commit([{ op: 'replace', ns: 'db.a', docs: [{ _id: 2, email: 'changed@x' }] }]);
  await catalog.commit([{ op: 'delete', ns: 'db.a', ids: [3] }]);
  await catalog.commit([insert('db.a', [{ _id: 5, email: 'p5@x' }])]);
  // The log is under a megabyte: closing leaves it to be replayed.
  await catalog.close();
  const a = [...people.filter((p) => p._id !== 3), { _id: 5, email: 'p5@x' }].map((p) =>
    p._id === 2 ? { _id: 2, email: 'changed@x' } : p,
  );
  return { dir, a, b: rich };
}

describe('a data directory opened lazily', () => {
  it('keeps each collection as BSON until it is read, then applies the log in order', async () => {
    const { dir, a, b } = await dataDirectory();
    const catalog = await Catalog.open(new FileJournal(dir));
    try {
      const collA = catalog.collection('db', 'a')!;
      const collB = catalog.collection('db', 'b')!;
      // Nothing read yet: `db.b` is still the snapshot's inserts as they were read.
      expect(collB.encodedInserts()?.map((e) => e.count)).toEqual([3]);
      // `db.a` holds a replace and a delete besides: a compaction could not copy it as it is.
      expect(collA.encodedInserts()).toBeNull();
      expect(bson(collA.docs.values())).toEqual(bson(a));
      expect([...collA.indexes.get('email_1')!.lookup(canonicalKey('changed@x'))!]).toEqual([
        canonicalKey(2),
      ]);
      expect(collA.indexes.get('email_1')!.lookup(canonicalKey('p3@x'))).toBeUndefined();
      // Reading one collection leaves the other alone.
      expect(collB.encodedInserts()).not.toBeNull();
      expect(bson(collB.docs.values())).toEqual(bson(b));
      expect(collB.encodedInserts()).toBeNull();
    } finally {
      await catalog.close();
    }
  });

  it('writes a collection nothing read into the next snapshot byte for byte, and reads it back', async () => {
    const { dir, b } = await dataDirectory();
    const journal = new FileJournal(dir);
    const catalog = await Catalog.open(journal);
    await journal.compact(() => catalog.snapshotMutations());
    // The compaction copied the bytes: `db.b` is still unread.
    expect(catalog.collection('db', 'b')!.encodedInserts()).not.toBeNull();
    await catalog.close();
    const reopened = await Catalog.open(new FileJournal(dir));
    try {
      expect(bson(reopened.collection('db', 'b')!.docs.values())).toEqual(bson(b));
    } finally {
      await reopened.close();
    }
  });

  it('applies a write to an unread collection after what loading left for it', async () => {
    const { dir, a } = await dataDirectory();
    const catalog = await Catalog.open(new FileJournal(dir));
    try {
      await catalog.commit([{ op: 'delete', ns: 'db.a', ids: [0] }]);
      await catalog.commit([insert('db.a', [{ _id: 9, email: 'p9@x' }])]);
      const coll = catalog.collection('db', 'a')!;
      expect(bson(coll.docs.values())).toEqual(bson([...a.slice(1), { _id: 9, email: 'p9@x' }]));
      expect(coll.indexes.get('email_1')!.lookup(canonicalKey('p0@x'))).toBeUndefined();
      expect(coll.indexes.get('email_1')!.lookup(canonicalKey('p9@x'))!.size).toBe(1);
    } finally {
      await catalog.close();
    }
  });
});
