import type { Document } from 'mongodb';
import { useTarget } from './target';

/**
 * A field named `__proto__` is an ordinary field name to mongod, in filters as in documents. The
 * filters are built as a client decoding JSON would build them (own `__proto__` properties).
 */
describe('filters on a field named __proto__', () => {
  const target = useTarget('proto_filter');
  const coll = () => target().db.collection<Document>('docs');
  const json = (text: string): Document => JSON.parse(text) as Document;
  const ids = async (filter: Document) =>
    (await coll().find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);

  beforeEach(async () => {
    await coll().deleteMany({});
    await coll().insertMany([
      json('{"_id": 1, "__proto__": "x"}'),
      json('{"_id": 2, "a": 1}'),
      json('{"_id": 3, "__proto__": {"n": 1}}'),
      json('{"_id": 4, "p": {"__proto__": 5}}'),
    ]);
  });

  it('matches only the documents whose __proto__ field satisfies the condition', async () => {
    expect(await ids(json('{"__proto__": "x"}'))).toEqual([1]);
    expect(await ids(json('{"__proto__": 1}'))).toEqual([]);
    expect(await ids(json('{"__proto__": {"$exists": true}}'))).toEqual([1, 3]);
    expect(await ids(json('{"__proto__": {"$exists": false}}'))).toEqual([2, 4]);
    expect(await ids(json('{"__proto__": {"n": 1}}'))).toEqual([3]);
    expect(await ids({ '__proto__.n': 1 })).toEqual([3]);
    expect(await ids({ 'p.__proto__': 5 })).toEqual([4]);
    expect(await ids(json('{"p": {"__proto__": 5}}'))).toEqual([4]);
  });

  it('keeps __proto__ a field inside $or, $and, $nor, $not and $elemMatch', async () => {
    expect(await ids({ $or: [json('{"__proto__": "x"}'), { a: 1 }] })).toEqual([1, 2]);
    expect(
      await ids({ $and: [json('{"__proto__": {"$exists": true}}'), { _id: { $gt: 1 } }] }),
    ).toEqual([3]);
    expect(await ids({ $nor: [json('{"__proto__": "x"}')] })).toEqual([2, 3, 4]);
    expect(await ids(json('{"__proto__": {"$not": {"$eq": "x"}}}'))).toEqual([2, 3, 4]);
    await coll().insertOne(json('{"_id": 5, "list": [{"__proto__": 7}, {"b": 1}]}'));
    expect(await ids({ list: { $elemMatch: json('{"__proto__": 7}') } })).toEqual([5]);
  });

  it('keeps __proto__ a field in aggregation stages', async () => {
    const out = await coll()
      .aggregate([
        { $match: json('{"__proto__": {"$exists": true}}') },
        { $project: json('{"__proto__": 1}') },
        { $sort: { _id: 1 } },
      ])
      .toArray();
    expect(out.map((d) => Object.keys(d).sort())).toEqual([
      ['__proto__', '_id'],
      ['__proto__', '_id'],
    ]);
    expect(out.map((d) => Object.getOwnPropertyDescriptor(d, '__proto__')?.value)).toEqual([
      'x',
      { n: 1 },
    ]);
    const grouped = await coll()
      .aggregate([
        { $match: json('{"__proto__": "x"}') },
        { $group: { _id: null, n: { $sum: 1 } } },
      ])
      .toArray();
    expect(grouped).toEqual([{ _id: null, n: 1 }]);
  });

  it('takes __proto__ as a field in validators and partial index filters', async () => {
    const checked = target().db.collection<Document>('checked');
    await checked.drop().catch(() => undefined);
    await target().db.createCollection('checked', {
      validator: json('{"__proto__": {"$exists": true}}'),
    });
    await checked.insertOne(json('{"_id": 1, "__proto__": 1}'));
    expect(
      await checked.insertOne(json('{"_id": 2}')).catch((e: { code?: number }) => e.code),
    ).toBe(121);
    const partial = target().db.collection<Document>('partial');
    await partial.drop().catch(() => undefined);
    await partial.createIndex(
      { a: 1 },
      { unique: true, partialFilterExpression: json('{"__proto__": {"$exists": true}}') },
    );
    await partial.insertMany([
      { _id: 1, a: 1 },
      { _id: 2, a: 1 },
      json('{"_id": 3, "a": 2, "__proto__": 0}'),
    ]);
    expect(
      await partial
        .insertOne(json('{"_id": 4, "a": 2, "__proto__": 1}'))
        .catch((e: { code?: number }) => e.code),
    ).toBe(11000);
  });

  it('counts, updates and deletes only the matching documents, polluting no prototype', async () => {
    // A null-prototype object: assigning __proto__ makes it an own field, as a decoder does.
    const filter: Document = Object.assign(Object.create(null) as Document, { ['__proto__']: 'x' });
    expect(Object.keys(filter)).toEqual(['__proto__']);
    expect(await coll().countDocuments(filter)).toBe(1);
    expect(
      (await coll().updateMany(json('{"__proto__": 1}'), { $set: { hit: true } })).matchedCount,
    ).toBe(0);
    expect((await coll().deleteMany(filter)).deletedCount).toBe(1);
    expect(await ids({})).toEqual([2, 3, 4]);
    expect((await coll().findOneAndDelete(json('{"__proto__": {"n": 1}}')))?._id).toBe(3);
    expect(await ids({})).toEqual([2, 4]);
    expect(({} as { n?: unknown }).n).toBeUndefined();
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });
});
