import { ObjectId } from 'bson';
import { canonicalKey } from '../../../src/store/storage/canonical-key';
import { Catalog } from '../../../src/store/storage/catalog';
import { MemoryJournal } from '../../../src/store/storage/memory-journal';
import type { Mutation } from '../../../src/store/storage/mutation';

describe('Catalog', () => {
  it('rebuilds the same state by replaying its snapshot mutations', async () => {
    const live = await Catalog.open(new MemoryJournal());
    const id = new ObjectId();
    await live.commit([
      { op: 'createCollection', ns: 'db.a', options: {} },
      {
        op: 'createIndexes',
        ns: 'db.a',
        specs: [{ v: 2, key: { email: 1 }, name: 'email_1', unique: true }],
      },
      {
        op: 'insert',
        ns: 'db.a',
        docs: [
          { _id: id, email: 'x' },
          { _id: 2, email: 'y' },
        ],
      },
    ]);
    await live.commit([{ op: 'replace', ns: 'db.a', docs: [{ _id: 2, email: 'z' }] }]);
    await live.commit([{ op: 'delete', ns: 'db.a', ids: [new ObjectId(id.toHexString())] }]);
    const replayed = await Catalog.open(new MemoryJournal([...live.snapshotMutations()]));
    const coll = replayed.collection('db', 'a')!;
    expect([...coll.docs.values()]).toEqual([{ _id: 2, email: 'z' }]);
    expect([...coll.indexes.keys()]).toEqual(['_id_', 'email_1']);
    expect(coll.indexes.get('email_1')!.lookup(canonicalKey('z'))!.size).toBe(1);
  });

  it('updates an index spec in place (collMod hidden), keeping its entries and place, and replays it', async () => {
    const live = await Catalog.open(new MemoryJournal());
    const spec = { v: 2, key: { email: 1 }, name: 'email_1' };
    await live.commit([
      { op: 'insert', ns: 'db.a', docs: [{ _id: 1, email: 'x' }] },
      { op: 'createIndexes', ns: 'db.a', specs: [spec, { v: 2, key: { n: 1 }, name: 'n_1' }] },
    ]);
    await live.commit([{ op: 'updateIndexSpec', ns: 'db.a', spec: { ...spec, hidden: true } }]);
    const replayed = await Catalog.open(new MemoryJournal([...live.snapshotMutations()]));
    for (const catalog of [live, replayed]) {
      const coll = catalog.collection('db', 'a')!;
      expect([...coll.indexes.keys()]).toEqual(['_id_', 'email_1', 'n_1']);
      expect(coll.indexes.get('email_1')!.hidden).toBe(true);
      expect(coll.indexes.get('email_1')!.lookup(canonicalKey('x'))!.size).toBe(1);
    }
  });

  it('renames and drops collections and databases', async () => {
    const catalog = await Catalog.open(new MemoryJournal());
    const batch: Mutation[] = [
      { op: 'insert', ns: 'd1.a', docs: [{ _id: 1 }] },
      { op: 'renameCollection', from: 'd1.a', to: 'd2.b', dropTarget: false },
    ];
    await catalog.commit(batch);
    expect(catalog.collection('d1', 'a')).toBeUndefined();
    expect(catalog.collection('d2', 'b')!.docs.size).toBe(1);
    expect(catalog.databaseNames()).toEqual(['d2']);
    await catalog.commit([{ op: 'dropDatabase', db: 'd2' }]);
    expect(catalog.databaseNames()).toEqual([]);
  });

  it('compacts once the log passes the threshold, not on every commit', async () => {
    const journal = new MemoryJournal();
    const catalog = await Catalog.open(journal, { compactionThreshold: 64 * 3 });
    await catalog.commit([{ op: 'insert', ns: 'd.c', docs: [{ _id: 1 }] }]);
    await catalog.commit([{ op: 'insert', ns: 'd.c', docs: [{ _id: 2 }] }]);
    expect(journal.compactions).toBe(0);
    await catalog.commit([{ op: 'insert', ns: 'd.c', docs: [{ _id: 3 }] }]);
    await catalog.close();
    expect(journal.compactions).toBe(1);
  });

  it('refuses every write after a journal sync failure', async () => {
    class FailingJournal extends MemoryJournal {
      fail = false;
      override async sync(): Promise<void> {
        if (this.fail) throw new Error('disk full');
      }
    }
    const journal = new FailingJournal();
    const catalog = await Catalog.open(journal);
    await catalog.commit([{ op: 'insert', ns: 'd.c', docs: [{ _id: 1 }] }]);
    journal.fail = true;
    await expect(catalog.commit([{ op: 'insert', ns: 'd.c', docs: [{ _id: 2 }] }])).rejects.toThrow(
      'journal write failed: disk full',
    );
    journal.fail = false;
    await expect(
      catalog.commit([{ op: 'insert', ns: 'd.c', docs: [{ _id: 3 }] }]),
    ).rejects.toMatchObject({ code: 96 });
    expect(catalog.collection('d', 'c')!.docs.size).toBe(2);
  });
});
