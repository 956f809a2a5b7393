import { Decimal128, Double, Int32, Long, ObjectId } from 'bson';
import { operationCollation } from '../../../src/store/query/collation';
import { runFind } from '../../../src/store/query/find-documents';
import { Collection } from '../../../src/store/storage/collection';

const objectId = new ObjectId();
const when = new Date('2026-01-02T03:04:05Z');

function collection(): Collection {
  const coll = new Collection('db', 'c', {});
  coll.insert([
    { _id: 1, v: 'one' },
    { _id: 'versions', v: 'string' },
    { _id: objectId, v: 'objectId' },
    { _id: when, v: 'date' },
    { _id: { a: 1, b: 2 }, v: 'a then b' },
    { _id: { b: 2, a: 1 }, v: 'b then a' },
    { _id: true, v: 'boolean' },
  ]);
  return coll;
}

// Each filter is a simple `_id` equality: the find answers it from the `_id` map alone. Counting
// the documents examined takes the general path (the filter compiled and run), which the answer
// must equal.
const filters: Array<[string, Record<string, unknown>]> = [
  ['an int', { _id: 1 }],
  ['a double equal to it', { _id: new Double(1) }],
  ['a long equal to it', { _id: Long.fromNumber(1) }],
  ['an int32 equal to it', { _id: new Int32(1) }],
  ['a decimal equal to it', { _id: Decimal128.fromString('1.0') }],
  ['a string', { _id: 'versions' }],
  ['$eq on a string', { _id: { $eq: 'versions' } }],
  ['an ObjectId', { _id: new ObjectId(objectId.toHexString()) }],
  ['a date', { _id: new Date(when.getTime()) }],
  ['a document, its fields in order', { _id: { a: 1, b: 2 } }],
  ['the same fields in the other order', { _id: { b: 2, a: 1 } }],
  ['$eq on a document', { _id: { $eq: { b: 2, a: 1 } } }],
  ['a boolean', { _id: true }],
  ['an id no document has', { _id: 2 }],
  ['a string no document has', { _id: 'Versions' }],
];

describe('find by a simple _id equality', () => {
  const coll = collection();

  it.each(filters)('answers %s as the compiled filter does', (_name, filter) => {
    const fast = runFind(coll, { filter, limit: 1 });
    const general = runFind(coll, { filter, limit: 1 }, true);
    expect(fast.access.stage).toBe('IDHACK');
    expect(fast.docs).toEqual(general.docs);
  });

  it('finds the one document of each id, and none for a missing one', () => {
    expect(runFind(coll, { filter: { _id: { a: 1, b: 2 } } }).docs.map((d) => d.v)).toEqual([
      'a then b',
    ]);
    expect(runFind(coll, { filter: { _id: Long.fromNumber(1) } }).docs.map((d) => d.v)).toEqual([
      'one',
    ]);
    expect(runFind(coll, { filter: { _id: 'Versions' } }).docs).toEqual([]);
    expect(runFind(undefined, { filter: { _id: 1 } }).docs).toEqual([]);
  });

  it('leaves a collation, a projection, a sort, a skip and a hint to the general path', () => {
    const collation = operationCollation({ locale: 'en', strength: 2 }, {});
    expect(runFind(coll, { filter: { _id: 'VERSIONS' }, collation }).docs.map((d) => d.v)).toEqual([
      'string',
    ]);
    expect(runFind(coll, { filter: { _id: 1 }, projection: { v: 0 } }).docs).toEqual([{ _id: 1 }]);
    expect(runFind(coll, { filter: { _id: 1 }, skip: 1 }).docs).toEqual([]);
    expect(runFind(coll, { filter: { _id: 1 }, hint: { _id: 1 } }).access.stage).toBe('IXSCAN');
  });
});
