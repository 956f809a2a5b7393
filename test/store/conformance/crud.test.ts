import { ObjectId } from 'mongodb';
import { useTarget } from './target';

describe('insert, find, update, delete', () => {
  const target = useTarget('crud');
  const coll = () => target().db.collection('people');

  beforeEach(async () => {
    await coll().deleteMany({});
    await coll().insertMany([
      { _id: 1 as never, name: 'ann', age: 31, tags: ['a', 'b'], address: { city: 'Oslo' } },
      { _id: 2 as never, name: 'bob', age: 25, tags: ['b'], address: { city: 'Bergen' } },
      { _id: 3 as never, name: 'cid', age: 40, tags: [], address: { city: 'Oslo' } },
      { _id: 4 as never, name: 'dee', age: null },
    ]);
  });

  it('gives inserted documents an ObjectId _id and finds them by it', async () => {
    const { insertedId } = await coll().insertOne({ name: 'eve' });
    expect(insertedId).toBeInstanceOf(ObjectId);
    expect(await coll().findOne({ _id: insertedId })).toEqual({ _id: insertedId, name: 'eve' });
    expect(await coll().findOne({ _id: new ObjectId(insertedId.toHexString()) })).not.toBeNull();
  });

  it('matches $in and $nin of strings as mongod does, whatever the length of the list', async () => {
    await coll().insertMany([
      { _id: 5 as never, name: 'eve', tags: [['a']], pets: [{ kind: 'cat' }, { kind: ['dog'] }] },
      { _id: 6 as never, name: 'fay', tags: 'a', pets: { kind: 7 } },
    ]);
    const names = async (filter: object) =>
      (await coll().find(filter).sort({ _id: 1 }).toArray()).map((d) => d.name);
    // An array offers each element, but not the elements of an array inside it.
    expect(await names({ tags: { $in: ['a', 'zz'] } })).toEqual(['ann', 'fay']);
    expect(await names({ tags: { $nin: ['a', 'zz'] } })).toEqual(['bob', 'cid', 'dee', 'eve']);
    // A path through an array of documents, and a leaf array there.
    expect(await names({ 'pets.kind': { $in: ['dog'] } })).toEqual(['eve']);
    expect(await names({ 'pets.kind': { $nin: ['cat', 'dog'] } })).toEqual([
      'ann',
      'bob',
      'cid',
      'dee',
      'fay',
    ]);
    // Strings never equal numbers or null; a missing or null field is in no list of strings.
    expect(await names({ age: { $in: ['25', 'null'] } })).toEqual([]);
    expect(await names({ name: { $in: [] } })).toEqual([]);
    expect(await names({ name: { $nin: [] } })).toHaveLength(6);
    // Thousands of ids, served by the _id index or scanned.
    const many = Array.from({ length: 6_000 }, (_, i) => `name-${i}`).concat(['bob', 'eve']);
    expect(await names({ name: { $in: many } })).toEqual(['bob', 'eve']);
    expect(await names({ name: { $nin: many } })).toEqual(['ann', 'cid', 'dee', 'fay']);
    expect(await coll().countDocuments({ _id: { $in: many.map((_, i) => i) as never[] } })).toBe(6);
  });

  it('finds on a missing collection as empty', async () => {
    expect(await target().db.collection('nothing_here').find({}).toArray()).toEqual([]);
  });

  it('matches comparison, logical, element, array and regex operators', async () => {
    const names = async (filter: object) =>
      (await coll().find(filter).sort({ _id: 1 }).toArray()).map((d) => d.name);
    expect(await names({ age: { $gt: 30 } })).toEqual(['ann', 'cid']);
    expect(await names({ age: { $gte: 25, $lt: 40 } })).toEqual(['ann', 'bob']);
    expect(await names({ age: { $in: [25, 40] } })).toEqual(['bob', 'cid']);
    expect(await names({ age: { $nin: [25, 40] } })).toEqual(['ann', 'dee']);
    expect(await names({ age: null })).toEqual(['dee']);
    expect(await names({ tags: { $exists: false } })).toEqual(['dee']);
    expect(await names({ $or: [{ name: 'ann' }, { age: 25 }] })).toEqual(['ann', 'bob']);
    expect(await names({ $and: [{ tags: 'b' }, { age: { $ne: 25 } }] })).toEqual(['ann']);
    expect(await names({ name: { $not: { $regex: '^[ab]' } } })).toEqual(['cid', 'dee']);
    expect(await names({ name: /^C/i })).toEqual(['cid']);
    expect(await names({ tags: { $size: 0 } })).toEqual(['cid']);
    expect(await names({ tags: { $all: ['a', 'b'] } })).toEqual(['ann']);
    expect(await names({ 'address.city': 'Oslo' })).toEqual(['ann', 'cid']);
    expect(await names({ address: { city: 'Bergen' } })).toEqual(['bob']);
    expect(await names({ age: { $type: 'null' } })).toEqual(['dee']);
    expect(await names({ $expr: { $gt: ['$age', 30] } })).toEqual(['ann', 'cid']);
  });

  it('projects with inclusion, exclusion, dotted paths and $slice', async () => {
    expect(await coll().findOne({ _id: 1 as never }, { projection: { name: 1 } })).toEqual({
      _id: 1,
      name: 'ann',
    });
    expect(await coll().findOne({ _id: 1 as never }, { projection: { name: 1, _id: 0 } })).toEqual({
      name: 'ann',
    });
    expect(
      await coll().findOne({ _id: 2 as never }, { projection: { tags: 0, address: 0, age: 0 } }),
    ).toEqual({ _id: 2, name: 'bob' });
    expect(
      await coll().findOne({ _id: 1 as never }, { projection: { 'address.city': 1, _id: 0 } }),
    ).toEqual({ address: { city: 'Oslo' } });
    expect(
      await coll().findOne(
        { _id: 1 as never },
        { projection: { tags: { $slice: 1 }, _id: 0, name: 1 } },
      ),
    ).toEqual({ name: 'ann', tags: ['a'] });
  });

  it('leaves stored documents untouched by nested exclusion projections', async () => {
    expect(
      await coll().findOne({ _id: 1 as never }, { projection: { 'address.city': 0, tags: 0 } }),
    ).toEqual({ _id: 1, name: 'ann', age: 31, address: {} });
    expect((await coll().findOne({ _id: 1 as never }))!.address).toEqual({ city: 'Oslo' });
  });

  it('sorts, skips and limits, and returns one batch for a negative limit', async () => {
    const sorted = await coll()
      .find({}, { sort: { age: -1 }, skip: 1, limit: 2 })
      .toArray();
    expect(sorted.map((d) => d.name)).toEqual(['ann', 'bob']);
    const multi = await coll().find({}).sort({ 'address.city': 1, name: -1 }).toArray();
    expect(multi.map((d) => d.name)).toEqual(['dee', 'bob', 'cid', 'ann']);
    const reply = await target().db.command({
      find: 'people',
      filter: {},
      sort: { _id: 1 },
      limit: -2,
    });
    expect(reply.cursor.firstBatch.map((d: { _id: number }) => d._id)).toEqual([1, 2]);
    expect(reply.cursor.id.toString()).toBe('0');
  });

  it('updates one or many and reports matched and modified counts', async () => {
    const one = await coll().updateOne({ tags: 'b' }, { $set: { seen: true } });
    expect(one).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
    const many = await coll().updateMany({ 'address.city': 'Oslo' }, { $inc: { age: 1 } });
    expect(many).toMatchObject({ matchedCount: 2, modifiedCount: 2 });
    const same = await coll().updateOne({ _id: 1 as never }, { $set: { name: 'ann' } });
    expect(same).toMatchObject({ matchedCount: 1, modifiedCount: 0 });
    expect((await coll().findOne({ _id: 3 as never }))!.age).toBe(41);
  });

  it('replaces a document keeping its _id', async () => {
    const r = await coll().replaceOne({ _id: 2 as never }, { name: 'bobby' });
    expect(r).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
    expect(await coll().findOne({ _id: 2 as never })).toEqual({ _id: 2, name: 'bobby' });
  });

  it('deletes one or many', async () => {
    expect((await coll().deleteOne({ 'address.city': 'Oslo' })).deletedCount).toBe(1);
    expect((await coll().deleteMany({ age: { $gte: 0 } })).deletedCount).toBe(2);
    expect(await coll().countDocuments()).toBe(1);
  });

  it('counts with query, skip and limit, and lists distinct values (array elements unwound)', async () => {
    expect(await coll().countDocuments({ 'address.city': 'Oslo' })).toBe(2);
    expect((await target().db.command({ count: 'people', query: {}, skip: 1, limit: 2 })).n).toBe(
      2,
    );
    expect(await coll().estimatedDocumentCount()).toBe(4);
    expect((await coll().distinct('tags')).sort()).toEqual(['a', 'b']);
    expect((await coll().distinct('address.city', { age: { $lt: 40 } })).sort()).toEqual([
      'Bergen',
      'Oslo',
    ]);
  });

  it('keeps ObjectId, Date, nested and numeric values intact through a round trip', async () => {
    const doc = {
      _id: new ObjectId(),
      at: new Date('2024-01-02T03:04:05Z'),
      n: 1.5,
      big: 2 ** 40,
      nested: { list: [1, { x: 'y' }] },
    };
    await coll().insertOne(doc as never);
    expect(await coll().findOne({ _id: doc._id })).toEqual(doc);
    expect(await coll().findOne({ at: new Date('2024-01-02T03:04:05Z') })).not.toBeNull();
  });
});
