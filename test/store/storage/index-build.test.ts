import type { Document } from 'bson';
import { canonicalKey } from '../../../src/store/storage/canonical-key';
import { Catalog } from '../../../src/store/storage/catalog';
import { Index } from '../../../src/store/storage/index';
import type { IndexSpec } from '../../../src/store/storage/index-spec';
import { MemoryJournal } from '../../../src/store/storage/memory-journal';
import type { Mutation } from '../../../src/store/storage/mutation';

const key = (...values: unknown[]): string => values.map(canonicalKey).join('\u0000');
const sorted = (found: Iterable<string> | undefined): string[] => [...(found ?? [])].sort();

/** Documents of every shape key extraction distinguishes: plain, missing, null, arrays on and at the end of paths, nested. */
const DOCS: Document[] = [
  { _id: 1, s: 'A', m: 'x', n: { t: 1 } },
  { _id: 2, s: 'A', m: 'y', n: { t: 2 } },
  { _id: 3, s: 'A', n: [{ t: 1 }, { t: 3 }] },
  { _id: 4, s: 'B', m: ['x', 'y', 'x'], n: { t: 1 } },
  { _id: 5, s: 'A', m: null, n: 'not a document' },
  { _id: 6, m: 'x', n: { t: [] } },
  { _id: 7, s: 'A', m: 'x', n: { t: 1 } },
  { _id: 8, s: ['A', 'B'], m: 'z' },
];

const SPECS: IndexSpec[] = [
  { v: 2, key: { s: 1 }, name: 's_1' },
  { v: 2, key: { s: 1, m: 1 }, name: 's_1_m_1' },
  { v: 2, key: { s: 1, 'n.t': 1, m: 1 }, name: 's_1_n.t_1_m_1' },
  { v: 2, key: { m: 1 }, name: 'm_1_sparse', sparse: true },
  { v: 2, key: { 'n.t': 1 }, name: 'n.t_1_partial', partialFilterExpression: { s: 'A' } },
];

/** Every key an index holds, with its ids, through its public lookups (whole keys and each prefix). */
function contents(index: Index, docs: Document[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const doc of docs) {
    for (const { key: whole } of index.keysFor(doc)) {
      const parts = whole.split('\u0000');
      for (let length = 1; length <= parts.length; length++) {
        const prefix = parts.slice(0, length).join('\u0000');
        out[`${length}:${prefix}`] = sorted(index.lookupPrefix(length, prefix));
      }
    }
  }
  return out;
}

describe('building an index in one pass', () => {
  it.each(SPECS.map((spec) => [spec.name, spec] as const))(
    'fill() holds exactly what adding the documents one by one holds (%s)',
    (_name, spec) => {
      const added = new Index(spec);
      for (const doc of DOCS) added.add(canonicalKey(doc._id), doc);
      const filled = new Index(spec);
      filled.fill(DOCS.map((doc) => [canonicalKey(doc._id), doc] as [string, Document]));
      expect(contents(filled, DOCS)).toEqual(contents(added, DOCS));
      expect(filled.keyCount).toBe(added.keyCount);
      expect(sorted(filled.allIds())).toEqual(sorted(added.allIds()));
      // Both hold each document under exactly the keys keysFor (the general extraction) names.
      const held = DOCS.filter((doc) => filled.keysFor(doc).length > 0).map((doc) =>
        canonicalKey(doc._id),
      );
      expect(sorted(filled.allIds())).toEqual(held.sort());
      for (const doc of DOCS) {
        for (const { key: whole } of filled.keysFor(doc))
          expect(filled.lookup(whole)).toContain(canonicalKey(doc._id));
      }
      expect(filled.keyCount).toBe(
        new Set(DOCS.flatMap((doc) => filled.keysFor(doc).map((k) => k.key))).size,
      );
      // And the documents then leave it as they would leave the other.
      for (const doc of DOCS) filled.remove(canonicalKey(doc._id), doc);
      expect(filled.keyCount).toBe(0);
    },
  );

  it('counts the ids a prefix gives without making them', () => {
    const index = new Index(SPECS[1]);
    index.fill(DOCS.map((doc) => [canonicalKey(doc._id), doc] as [string, Document]));
    for (const prefix of ['A', 'B', 'C']) {
      expect(index.countPrefix(1, key(prefix))).toBe(
        [...(index.lookupPrefix(1, key(prefix)) ?? [])].length,
      );
    }
    expect(index.countPrefix(2, key('A', 'x'))).toBe(2);
  });

  it('loads a data directory without building its indexes, then fills each from the remaining documents on first use, never the ones the log replaced or deleted', async () => {
    const ns = 'db.c';
    const docs = Array.from({ length: 50 }, (_, i) => ({ _id: i, s: `s${i % 5}`, m: `m${i % 3}` }));
    const journal: Mutation[] = [
      { op: 'createCollection', ns, options: {} },
      { op: 'createIndexes', ns, specs: [SPECS[0], SPECS[1]] },
      { op: 'insert', ns, docs: docs.map((doc) => ({ ...doc })) },
      { op: 'replace', ns, docs: docs.slice(0, 10).map((doc) => ({ ...doc, s: 'replaced' })) },
      { op: 'delete', ns, ids: docs.slice(40).map((doc) => doc._id) },
      // A torn compaction's replay: documents inserted again over themselves.
      { op: 'insert', ns, docs: docs.slice(20, 30).map((doc) => ({ ...doc })) },
    ];
    const add = jest.spyOn(Index.prototype, 'add');
    const remove = jest.spyOn(Index.prototype, 'remove');
    const fill = jest.spyOn(Index.prototype, 'fill');
    try {
      const catalog = await Catalog.open(new MemoryJournal(journal));
      const coll = catalog.collection('db', 'c')!;
      expect(coll.docs.size).toBe(40);
      expect(add).not.toHaveBeenCalled();
      expect(remove).not.toHaveBeenCalled();
      expect(fill).not.toHaveBeenCalled();
      const byS = coll.indexes.get('s_1')!;
      expect(sorted(byS.lookup(key('replaced')))).toEqual(
        docs
          .slice(0, 10)
          .map((d) => canonicalKey(d._id))
          .sort(),
      );
      expect(byS.allIds().size).toBe(40);
      expect(fill).toHaveBeenCalledTimes(1);
      expect(coll.indexes.get('s_1_m_1')!.countPrefix(1, key('s4'))).toBe(6);
      expect(fill).toHaveBeenCalledTimes(2);
      // Once loaded, writes maintain the indexes one document at a time again.
      await catalog.commit([{ op: 'insert', ns, docs: [{ _id: 100, s: 'new', m: 'm0' }] }]);
      expect(sorted(byS.lookup(key('new')))).toEqual([canonicalKey(100)]);
      expect(add).toHaveBeenCalledTimes(2);
    } finally {
      add.mockRestore();
      remove.mockRestore();
      fill.mockRestore();
    }
  });

  it('fills an index nothing used yet when a write first reaches it, with the write in it once', async () => {
    const ns = 'db.c';
    const docs = Array.from({ length: 10 }, (_, i) => ({ _id: i, s: `s${i % 2}`, m: 'm' }));
    const catalog = await Catalog.open(
      new MemoryJournal([
        { op: 'createCollection', ns, options: {} },
        { op: 'createIndexes', ns, specs: [SPECS[0]] },
        { op: 'insert', ns, docs: docs.map((doc) => ({ ...doc })) },
      ]),
    );
    await catalog.commit([
      { op: 'replace', ns, docs: [{ _id: 0, s: 'moved', m: 'm' }] },
      { op: 'insert', ns, docs: [{ _id: 10, s: 's0', m: 'm' }] },
    ]);
    await catalog.commit([{ op: 'delete', ns, ids: [2] }]);
    const byS = catalog.collection('db', 'c')!.indexes.get('s_1')!;
    expect(sorted(byS.lookup(key('moved')))).toEqual([canonicalKey(0)]);
    expect(sorted(byS.lookup(key('s0')))).toEqual(
      [4, 6, 8, 10].map((id) => canonicalKey(id)).sort(),
    );
    expect(byS.allIds().size).toBe(10);
  });
});
