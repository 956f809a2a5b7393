import { ObjectId } from 'bson';
import { candidateDocuments, findCandidates } from '../../../src/store/query/candidates';
import { Index } from '../../../src/store/storage/index';
import { Collection } from '../../../src/store/storage/collection';

function collection(): Collection {
  const coll = new Collection('db', 'c', {});
  coll.addIndex({ v: 2, key: { email: 1 }, name: 'email_1' });
  coll.addIndex({ v: 2, key: { tag: 1 }, name: 'tag_1', sparse: true });
  coll.insert(
    Array.from({ length: 1000 }, (_, i) => ({
      _id: i,
      email: `u${i}@x`,
      tag: i % 2 ? 'odd' : 'even',
      n: i,
    })),
  );
  return coll;
}

const size = (docs: Iterable<unknown>) => [...docs].length;

describe('candidateDocuments', () => {
  const coll = collection();

  it('narrows an _id equality or $in to the matching documents', () => {
    expect(size(candidateDocuments(coll, { _id: 5 }))).toBe(1);
    expect(size(candidateDocuments(coll, { _id: 5.0, n: 5 }))).toBe(1);
    expect(size(candidateDocuments(coll, { _id: { $in: [1, 2, 3000] } }))).toBe(2);
    expect(size(candidateDocuments(coll, { _id: new ObjectId() }))).toBe(0);
  });

  it('looks strings up only where both the query and the index compare them bytewise', () => {
    expect(size(candidateDocuments(coll, { email: 'u7@x' }, true))).toBe(1000);
    expect(size(candidateDocuments(coll, { _id: 5 }, true))).toBe(1);
    const collated = new Collection('db', 'ci', {});
    collated.addIndex({
      v: 2,
      key: { email: 1 },
      name: 'email_1',
      collation: { locale: 'en', strength: 2 },
    });
    collated.insert([
      { _id: 1, email: 'A@x' },
      { _id: 2, email: 'b@x' },
    ]);
    expect(size(candidateDocuments(collated, { email: 'a@x' }))).toBe(2);
  });

  it('narrows an equality on a single-field index, also inside $and', () => {
    expect(size(candidateDocuments(coll, { email: 'u7@x' }))).toBe(1);
    expect(
      size(candidateDocuments(coll, { $and: [{ n: { $gt: 3 } }, { email: { $eq: 'u9@x' } }] })),
    ).toBe(1);
    expect(size(candidateDocuments(coll, { email: { $in: ['u1@x', 'u2@x'] } }))).toBe(2);
  });

  it('scans for ranges, null, regexes, unindexed fields and sparse indexes', () => {
    expect(size(candidateDocuments(coll, { email: { $gt: 'u' } }))).toBe(1000);
    expect(size(candidateDocuments(coll, { email: null }))).toBe(1000);
    expect(size(candidateDocuments(coll, { email: /u1/ }))).toBe(1000);
    expect(size(candidateDocuments(coll, { n: 3 }))).toBe(1000);
    expect(size(candidateDocuments(coll, { tag: 'odd' }))).toBe(1000);
  });

  it('follows replacements and deletes', () => {
    const c = collection();
    c.replace([{ _id: 1, email: 'changed@x' }]);
    c.delete([2]);
    expect(size(candidateDocuments(c, { email: 'u1@x' }))).toBe(0);
    expect(size(candidateDocuments(c, { email: 'changed@x' }))).toBe(1);
    expect(size(candidateDocuments(c, { email: 'u2@x' }))).toBe(0);
  });
});

describe('choosing among compound indexes', () => {
  function opportunities(): Collection {
    const coll = new Collection('db', 'o', {});
    coll.addIndex({ v: 2, key: { s: 1, d: 1, t: 1 }, name: 's_d_t' });
    coll.addIndex({ v: 2, key: { s: 1, m: 1 }, name: 's_m' });
    coll.addIndex({ v: 2, key: { s: 1, team: 1 }, name: 's_team' });
    coll.addIndex({ v: 2, key: { m: 1 }, name: 'm' });
    coll.insert(
      Array.from({ length: 600 }, (_, i) => ({
        _id: i,
        s: `s${i % 3}`,
        d: `d${i % 2}`,
        t: `t${i % 4}`,
        m: ['a', 'b', `m${i % 5}`],
        team: `x${i % 2}`,
      })),
    );
    return coll;
  }

  it('makes the ids of the chosen index only, and each document once even when it sits under several keys', () => {
    const coll = opportunities();
    const made = jest.spyOn(Index.prototype, 'lookupPrefix');
    try {
      // All three serve an equality on s; they hold the same number of ids, and only one is read.
      const bySnapshot = findCandidates(coll, { s: 's1' });
      expect(size(bySnapshot.docs)).toBe(200);
      expect(new Set(made.mock.contexts).size).toBe(1);
      made.mockClear();
      // The narrower one wins: two fields of s_m against one of the others.
      const byMember = findCandidates(coll, { s: 's1', m: 'm2' });
      expect(byMember.index?.name).toBe('s_m');
      expect(size(byMember.docs)).toBe(40);
      expect(new Set(made.mock.contexts)).toEqual(new Set([coll.indexes.get('s_m')]));
      // Every document holds both a and b: each is a candidate once.
      const multikey = findCandidates(coll, { m: { $in: ['a', 'b'] } });
      expect(multikey.index?.name).toBe('m');
      expect(size(multikey.docs)).toBe(600);
      const byTeam = findCandidates(coll, { s: 's1', team: 'x0' });
      expect(byTeam.index?.name).toBe('s_team');
      expect(size(byTeam.docs)).toBe(100);
    } finally {
      made.mockRestore();
    }
  });
});
