import { canonicalKey } from '../../../src/store/storage/canonical-key';
import { Collection } from '../../../src/store/storage/collection';
import { Index } from '../../../src/store/storage/index';

const ids = (found: Iterable<string> | undefined): string[] => [...(found ?? [])].sort();
const key = (...values: unknown[]): string => values.map(canonicalKey).join('\u0000');
const id = (n: number): string => canonicalKey(n);

describe('Index entries', () => {
  it('keeps lookups exact as keys go from one document to several and back', () => {
    const index = new Index({ v: 2, key: { a: 1 }, name: 'a_1' });
    index.add(id(1), { _id: 1, a: 'x' });
    expect(ids(index.lookup(canonicalKey('x')))).toEqual([id(1)]);
    expect(index.lookup(canonicalKey('x'))!.size).toBe(1);
    index.add(id(2), { _id: 2, a: 'x' });
    index.add(id(2), { _id: 2, a: 'x' });
    expect(ids(index.lookup(canonicalKey('x')))).toEqual([id(1), id(2)]);
    index.remove(id(1), { _id: 1, a: 'x' });
    expect(ids(index.lookup(canonicalKey('x')))).toEqual([id(2)]);
    index.remove(id(3), { _id: 3, a: 'x' });
    expect(ids(index.lookup(canonicalKey('x')))).toEqual([id(2)]);
    index.remove(id(2), { _id: 2, a: 'x' });
    expect(index.lookup(canonicalKey('x'))).toBeUndefined();
    expect(index.keyCount).toBe(0);
    expect(index.allIds().size).toBe(0);
  });

  it('answers prefix lookups of a compound index from the whole keys under each prefix', () => {
    const index = new Index({ v: 2, key: { s: 1, d: 1, t: 1 }, name: 's_1_d_1_t_1' });
    const docs = [
      { _id: 1, s: 'A', d: 'p', t: 1 },
      { _id: 2, s: 'A', d: 'p', t: 2 },
      { _id: 3, s: 'A', d: 'q', t: 1 },
      { _id: 4, s: 'B', d: 'p', t: 1 },
      { _id: 5, s: 'A', d: 'p', t: 1 },
    ];
    for (const doc of docs) index.add(id(doc._id), doc);
    expect(ids(index.lookupPrefix(1, key('A')))).toEqual([1, 2, 3, 5].map(id).sort());
    expect(ids(index.lookupPrefix(2, key('A', 'p')))).toEqual([1, 2, 5].map(id).sort());
    expect(ids(index.lookupPrefix(3, key('A', 'p', 1)))).toEqual([1, 5].map(id).sort());
    expect(ids(index.lookupPrefix(1, key('C')))).toEqual([]);

    // A prefix keeps a whole key while any document holds it, and drops it with the last one.
    index.remove(id(1), docs[0]);
    expect(ids(index.lookupPrefix(2, key('A', 'p')))).toEqual([2, 5].map(id).sort());
    index.remove(id(5), docs[4]);
    index.remove(id(2), docs[1]);
    expect(index.lookupPrefix(2, key('A', 'p'))).toBeUndefined();
    expect(ids(index.lookupPrefix(1, key('A')))).toEqual([id(3)]);
    index.remove(id(3), docs[2]);
    expect(index.lookupPrefix(1, key('A'))).toBeUndefined();
    expect(ids(index.allIds())).toEqual([id(4)]);
  });
});

describe('Collection string sharing', () => {
  it('stores documents with the values they were given, a __proto__ field staying a field', () => {
    const coll = new Collection('db', 'c', {});
    const evil = JSON.parse(
      '{"_id": 3, "__proto__": "p", "n": {"__proto__": "q", "s": "same"}}',
    ) as Record<string, unknown>;
    const docs = [
      { _id: 1, s: 'same', list: ['same', { s: 'same' }], when: new Date(0) },
      { _id: 2, s: 'same', long: 'x'.repeat(100) },
      evil,
    ];
    coll.insert(docs.map((doc) => structuredClone(doc)));
    expect(coll.getById(1)).toEqual(docs[0]);
    expect(coll.getById(2)).toEqual(docs[1]);
    const stored = coll.getById(3)!;
    expect(Object.keys(stored)).toEqual(['_id', '__proto__', 'n']);
    expect(Object.getOwnPropertyDescriptor(stored, '__proto__')?.value).toBe('p');
    expect(Object.getOwnPropertyDescriptor(stored.n, '__proto__')?.value).toBe('q');
    expect(stored.n.s).toBe('same');
  });
});
