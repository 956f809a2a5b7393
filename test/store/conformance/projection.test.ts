import { MongoServerError } from 'mongodb';
import { useTarget } from './target';

describe('find projections', () => {
  const target = useTarget('projection');
  const coll = () => target().db.collection('items');

  beforeEach(async () => {
    await coll().deleteMany({});
    await coll().insertMany([
      {
        _id: 1 as never,
        name: 'ann',
        arr: [1, 2, 3, 4, 5],
        dev: true,
        details: { colors: ['blue', 'red'], sizes: ['S', 'M'] },
        qty: 100,
      },
      { _id: 2 as never, name: 'bob', arr: 'not an array', dev: false, qty: 5 },
      {
        _id: 3 as never,
        title: 'T',
        author: 'A',
        year: 1999,
        tags: [0, 3, 5],
        students: [
          { name: 'j', school: 102 },
          { name: 'k', school: 103 },
        ],
      },
    ]);
  });

  const one = (id: number, projection: object) =>
    coll().findOne({ _id: id as never }, { projection });
  const failure = async (projection: object) => {
    const err = await one(1, projection).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    return err as MongoServerError;
  };

  it('$slice alone slices the array and keeps every other field (an exclusion projection)', async () => {
    const doc = await one(1, { arr: { $slice: 1 } });
    expect(doc).toEqual({
      _id: 1,
      name: 'ann',
      arr: [1],
      dev: true,
      details: { colors: ['blue', 'red'], sizes: ['S', 'M'] },
      qty: 100,
    });
    expect(Object.keys(doc!)).toEqual(['_id', 'name', 'arr', 'dev', 'details', 'qty']);
  });

  it('$slice with an exclusion is an exclusion projection', async () => {
    expect(await one(1, { arr: { $slice: 2 }, dev: 0, details: 0 })).toEqual({
      _id: 1,
      name: 'ann',
      arr: [1, 2],
      qty: 100,
    });
    expect(await one(1, { _id: 0, arr: { $slice: 1 }, details: 0 })).toEqual({
      name: 'ann',
      arr: [1],
      dev: true,
      qty: 100,
    });
  });

  it('$slice with an inclusion returns only the included fields', async () => {
    expect(await one(1, { name: 1, arr: { $slice: 1 } })).toEqual({
      _id: 1,
      name: 'ann',
      arr: [1],
    });
    expect(await one(1, { _id: 1, arr: { $slice: 1 } })).toEqual({ _id: 1, arr: [1] });
  });

  it('$slice counts from the end for negative values and takes [skip, limit]', async () => {
    const arr = async (slice: unknown) => (await one(1, { arr: { $slice: slice } }))!.arr;
    expect(await arr(-2)).toEqual([4, 5]);
    expect(await arr(10)).toEqual([1, 2, 3, 4, 5]);
    expect(await arr(-10)).toEqual([1, 2, 3, 4, 5]);
    expect(await arr(0)).toEqual([]);
    expect(await arr([1, 2])).toEqual([2, 3]);
    expect(await arr([-2, 1])).toEqual([4]);
    expect(await arr([-10, 2])).toEqual([1, 2]);
    expect(await arr([7, 2])).toEqual([]);
  });

  it('$slice leaves a value that is not an array as it is', async () => {
    expect(await one(2, { arr: { $slice: 1 } })).toEqual({
      _id: 2,
      name: 'bob',
      arr: 'not an array',
      dev: false,
      qty: 5,
    });
  });

  it('$slice of an array in a nested document, inside an inclusion and an exclusion', async () => {
    expect(await one(1, { qty: 1, 'details.colors': { $slice: 1 } })).toEqual({
      _id: 1,
      qty: 100,
      details: { colors: ['blue'] },
    });
    expect(await one(1, { _id: 0, 'details.colors': { $slice: 1 } })).toEqual({
      name: 'ann',
      arr: [1, 2, 3, 4, 5],
      dev: true,
      details: { colors: ['blue'], sizes: ['S', 'M'] },
      qty: 100,
    });
  });

  it('refuses mixing inclusion and exclusion with mongod codes', async () => {
    expect((await failure({ name: 1, dev: 0 })).code).toBe(31254);
    expect((await failure({ dev: 0, name: 1 })).code).toBe(31253);
  });

  it('refuses colliding paths with mongod codes', async () => {
    expect((await failure({ details: 1, 'details.colors': 1 })).code).toBe(31249);
    expect((await failure({ 'details.colors': 1, details: 1 })).code).toBe(31250);
  });

  it('answers inclusion projections in stored field order, _id first', async () => {
    const doc = await one(3, { author: 1, title: 1 });
    expect(doc).toEqual({ _id: 3, title: 'T', author: 'A' });
    expect(Object.keys(doc!)).toEqual(['_id', 'title', 'author']);
    const nested = await one(1, { 'details.sizes': 1, 'details.colors': 1, _id: 0 });
    expect(Object.keys(nested!.details)).toEqual(['colors', 'sizes']);
  });

  it('puts a field added by $set after the stored ones', async () => {
    await coll().insertOne({ _id: 10 as never, n: 5, amount: 7, tags: ['x'] });
    await coll().updateOne({ n: 5 }, { $set: { flag: true } });
    const doc = await coll().findOne({ n: 5 }, { projection: { flag: 1, amount: 1, tags: 1 } });
    expect(doc).toEqual({ _id: 10, amount: 7, tags: ['x'], flag: true });
    expect(Object.keys(doc!)).toEqual(['_id', 'amount', 'tags', 'flag']);
  });

  it('puts computed fields after the included ones', async () => {
    const doc = await one(3, { upper: { $toLower: '$title' }, year: 1 });
    expect(doc).toEqual({ _id: 3, year: 1999, upper: 't' });
    expect(Object.keys(doc!)).toEqual(['_id', 'year', 'upper']);
  });

  it('$elemMatch returns the first matching element, with scalar or document conditions', async () => {
    expect(await one(3, { tags: { $elemMatch: { $gt: 1 } } })).toEqual({ _id: 3, tags: [3] });
    expect(await one(3, { _id: 0, tags: { $elemMatch: { $gte: 5 } } })).toEqual({ tags: [5] });
    expect(await one(3, { tags: { $elemMatch: { $gt: 10 } } })).toEqual({ _id: 3 });
    expect(await one(3, { students: { $elemMatch: { school: 103 } }, year: 1 })).toEqual({
      _id: 3,
      year: 1999,
      students: [{ name: 'k', school: 103 }],
    });
  });

  it('refuses $elemMatch on a nested field or without an object', async () => {
    expect((await failure({ 'details.colors': { $elemMatch: { $eq: 'red' } } })).code).toBe(31275);
    expect((await failure({ tags: { $elemMatch: 1 } })).code).toBe(31274);
  });

  it('walks arrays below a projected path: documents are projected, other elements dropped by an inclusion and kept by an exclusion', async () => {
    await coll().insertOne({ _id: 30 as never, a: [{ b: 1, c: 2 }, 3, [{ b: 4 }]], d: { b: 5 } });
    expect(await one(30, { 'a.b': 1 })).toEqual({ _id: 30, a: [{ b: 1 }] });
    expect(await one(30, { 'a.b': 0 })).toEqual({
      _id: 30,
      a: [{ c: 2 }, 3, [{ b: 4 }]],
      d: { b: 5 },
    });
    expect(await one(30, { 'd.x': 1 })).toEqual({ _id: 30, d: {} });
    expect(await one(30, { d: { b: 1 }, _id: 0 })).toEqual({ d: { b: 5 } });
  });

  it('projects a field named __proto__ as a plain field', async () => {
    await coll().insertOne(JSON.parse('{"_id": 20, "__proto__": [1, 2, 3], "n": 1}'));
    const doc = (await coll().findOne(
      { _id: 20 as never },
      { projection: JSON.parse('{"__proto__": {"$slice": -1}}') },
    ))!;
    expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
    expect(Object.keys(doc)).toEqual(['_id', '__proto__', 'n']);
    expect(Object.getOwnPropertyDescriptor(doc, '__proto__')!.value).toEqual([3]);
    const included = (await coll().findOne(
      { _id: 20 as never },
      { projection: JSON.parse('{"n": 1, "__proto__": 1}') },
    ))!;
    expect(Object.keys(included)).toEqual(['_id', '__proto__', 'n']);
  });

  it('projects findAndModify results the same way', async () => {
    const before = await coll().findOneAndUpdate(
      { _id: 1 as never },
      { $set: { qty: 1 } },
      { projection: { arr: { $slice: -1 }, details: 0 } },
    );
    expect(before).toEqual({ _id: 1, name: 'ann', arr: [5], dev: true, qty: 100 });
  });
});
