import { MongoServerError } from 'mongodb';
import { useTarget } from './target';

/**
 * Collation (ICU through Intl.Collator): string equality and order under a locale and a strength,
 * per operation, as a collection's default, and on indexes.
 */
describe('collation', () => {
  const target = useTarget('collation');
  const coll = () => target().db.collection<{ _id: number; name: string }>('fruit');
  const CI = { locale: 'en', strength: 2 };
  const names = async (p: Promise<Array<{ name: string }>>) => (await p).map((d) => d.name);

  beforeEach(async () => {
    await coll()
      .drop()
      .catch(() => undefined);
    await coll().insertMany([
      { _id: 1, name: 'apple' },
      { _id: 2, name: 'Apple' },
      { _id: 3, name: 'APPLE' },
      { _id: 4, name: 'äpple' },
      { _id: 5, name: 'banana' },
    ]);
  });

  const refused = async (p: Promise<unknown>) => {
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    return err as MongoServerError;
  };

  it('compares strings bytewise without a collation', async () => {
    expect(await coll().countDocuments({ name: 'apple' })).toBe(1);
    expect(
      await names(
        coll()
          .find({}, { sort: { name: 1 } })
          .toArray(),
      ),
    ).toEqual(['APPLE', 'Apple', 'apple', 'banana', 'äpple']);
  });

  it('matches equality case-insensitively at strength 2 and accent-insensitively at strength 1', async () => {
    expect(
      (
        await coll()
          .find({ name: 'apple' }, { collation: CI, sort: { _id: 1 } })
          .toArray()
      ).map((d) => d._id),
    ).toEqual([1, 2, 3]);
    expect(
      (
        await coll()
          .find({ name: 'APPLE' }, { collation: { locale: 'en', strength: 1 }, sort: { _id: 1 } })
          .toArray()
      ).map((d) => d._id),
    ).toEqual([1, 2, 3, 4]);
    const caseLevel = await coll()
      .find(
        { name: 'apple' },
        { collation: { locale: 'en', strength: 1, caseLevel: true }, sort: { _id: 1 } },
      )
      .toArray();
    expect(caseLevel.map((d) => d._id)).toEqual([1, 4]);
    expect(
      await coll().countDocuments({ name: { $in: ['APPLE', 'kiwi'] } }, { collation: CI }),
    ).toBe(3);
    expect(await coll().countDocuments({ name: { $ne: 'apple' } }, { collation: CI })).toBe(2);
    expect(await coll().countDocuments({ name: { $nin: ['apple'] } }, { collation: CI })).toBe(2);
    expect(
      await coll().countDocuments({ $or: [{ name: { $eq: 'BANANA' } }] }, { collation: CI }),
    ).toBe(1);
    expect(
      await coll().countDocuments({ name: { $gte: 'APPLE', $lt: 'b' } }, { collation: CI }),
    ).toBe(4);
  });

  it('orders strings by the locale, with the case order and numeric options', async () => {
    const sorted = await names(
      coll()
        .find({ _id: { $in: [1, 2, 5] } }, { collation: { locale: 'en' }, sort: { name: 1 } })
        .toArray(),
    );
    expect(sorted).toEqual(['apple', 'Apple', 'banana']);
    const upperFirst = await names(
      coll()
        .find(
          { _id: { $in: [1, 2] } },
          { collation: { locale: 'en', caseFirst: 'upper' }, sort: { name: 1 } },
        )
        .toArray(),
    );
    expect(upperFirst).toEqual(['Apple', 'apple']);
    await coll().insertMany([
      { _id: 10, name: '10' },
      { _id: 11, name: '9' },
      { _id: 12, name: '2' },
    ]);
    const numeric = await names(
      coll()
        .find(
          { _id: { $gte: 10 } },
          { collation: { locale: 'en', numericOrdering: true }, sort: { name: 1 } },
        )
        .toArray(),
    );
    expect(numeric).toEqual(['2', '9', '10']);
    expect(
      await names(
        coll()
          .find({ _id: { $gte: 10 } }, { sort: { name: 1 } })
          .toArray(),
      ),
    ).toEqual(['10', '2', '9']);
  });

  it('applies to count, distinct, updates, deletes, findAndModify and aggregate', async () => {
    expect(await coll().countDocuments({ name: 'APPLE' }, { collation: CI })).toBe(3);
    const distinct = await coll().distinct('name', { _id: { $lte: 3 } }, { collation: CI });
    expect(distinct).toHaveLength(1);
    expect(distinct[0].toLowerCase()).toBe('apple');
    const updated = await coll().updateMany(
      { name: 'apple' },
      { $set: { seen: true } },
      { collation: CI },
    );
    expect(updated.modifiedCount).toBe(3);
    const found = await coll().findOneAndUpdate(
      { name: 'BANANA' },
      { $set: { seen: true } },
      { collation: CI, returnDocument: 'after' },
    );
    expect(found).toMatchObject({ _id: 5, seen: true });
    const piped = await coll()
      .aggregate(
        [{ $match: { name: 'APPLE' } }, { $sort: { _id: -1 } }, { $project: { _id: 1 } }],
        { collation: CI },
      )
      .toArray();
    expect(piped).toEqual([{ _id: 3 }, { _id: 2 }, { _id: 1 }]);
    const removed = await coll().deleteMany(
      { name: 'Apple' },
      { collation: { locale: 'en', strength: 1 } },
    );
    expect(removed.deletedCount).toBe(4);
    expect(await coll().countDocuments()).toBe(1);
  });

  it("applies to an update's positional $, its arrayFilters and $pull", async () => {
    const baskets = target().db.collection<{
      _id: number;
      items: string[];
      tags: Array<{ n: string; hit?: boolean }>;
    }>('baskets');
    await baskets.drop().catch(() => undefined);
    await baskets.insertOne({
      _id: 1,
      items: ['kiwi', 'Banana', 'banana'],
      tags: [{ n: 'Red' }, { n: 'green' }, { n: 'blue' }],
    });
    await baskets.updateOne(
      { _id: 1, items: 'BANANA' },
      { $set: { 'items.$': 'plum' } },
      { collation: CI },
    );
    await baskets.updateOne(
      { _id: 1 },
      { $set: { 'tags.$[t].hit': true } },
      { collation: CI, arrayFilters: [{ 't.n': 'RED' }] },
    );
    await baskets.updateOne(
      { _id: 1 },
      { $pull: { items: 'KIWI', tags: { n: 'GREEN' } } },
      { collation: CI },
    );
    expect(await baskets.findOne({ _id: 1 })).toEqual({
      _id: 1,
      items: ['plum', 'banana'],
      tags: [{ n: 'Red', hit: true }, { n: 'blue' }],
    });
    // Without the collation the same update finds nothing to change.
    const bytewise = await baskets.updateOne(
      { _id: 1 },
      { $pull: { items: 'BANANA', tags: { n: 'BLUE' } } },
    );
    expect(bytewise.modifiedCount).toBe(0);
  });

  it('uses the collection default collation unless the operation names its own', async () => {
    await target()
      .db.collection('ci')
      .drop()
      .catch(() => undefined);
    const ci = await target().db.createCollection<{ _id: number; name: string }>('ci', {
      collation: CI,
    });
    await ci.insertMany([
      { _id: 1, name: 'apple' },
      { _id: 2, name: 'Apple' },
    ]);
    expect(await ci.countDocuments({ name: 'APPLE' })).toBe(2);
    expect(await ci.countDocuments({ name: 'APPLE' }, { collation: { locale: 'simple' } })).toBe(0);
    const [info] = await target().db.listCollections({ name: 'ci' }).toArray();
    const collation = (info as unknown as { options: { collation: Record<string, unknown> } })
      .options.collation;
    expect(collation).toMatchObject({
      locale: 'en',
      strength: 2,
      caseLevel: false,
      caseFirst: 'off',
      numericOrdering: false,
      alternate: 'non-ignorable',
      backwards: false,
    });
    expect(Object.keys(collation).sort()).toEqual([
      'alternate',
      'backwards',
      'caseFirst',
      'caseLevel',
      'locale',
      'maxVariable',
      'normalization',
      'numericOrdering',
      'strength',
      'version',
    ]);
    // Indexes of the collection take its collation (the _id index too).
    await ci.createIndex({ name: 1 });
    const indexes = await ci.listIndexes().toArray();
    expect(indexes.map((i) => [i.name, i.collation?.strength])).toEqual([
      ['_id_', 2],
      ['name_1', 2],
    ]);
  });

  it('keeps an index collation: a strength-2 unique index holds "A" and "a" as duplicates', async () => {
    await coll().deleteMany({ _id: { $in: [2, 3] } });
    await coll().createIndex({ name: 1 }, { unique: true, collation: CI });
    const [, index] = await coll().listIndexes().toArray();
    expect(index).toMatchObject({
      name: 'name_1',
      unique: true,
      collation: { locale: 'en', strength: 2 },
    });
    const dup = await refused(coll().insertOne({ _id: 6, name: 'APPLE' }));
    expect(dup.code).toBe(11000);
    expect((await refused(coll().updateOne({ _id: 5 }, { $set: { name: 'Apple' } }))).code).toBe(
      11000,
    );
    await coll().insertOne({ _id: 7, name: 'ápple' }); // accents still differ at strength 2
    expect((await refused(coll().insertOne({ _id: 8, name: 'ÁPPLE' }))).code).toBe(11000);
    // The same key under another collation is another index.
    await coll().createIndex({ name: 1 }, { name: 'name_binary' });
    expect((await coll().listIndexes().toArray()).map((i) => i.name)).toEqual([
      '_id_',
      'name_1',
      'name_binary',
    ]);
  });

  it("refuses collations mongod refuses, with mongod's codes", async () => {
    const unknown = await refused(
      coll()
        .find({}, { collation: { locale: 'xx' } })
        .toArray(),
    );
    expect(unknown.code).toBe(2);
    expect(unknown.message).toBe('Field \'locale\' is invalid in: { locale: "xx" }');
    expect(
      (
        await refused(
          coll()
            .find({}, { collation: { locale: 'en', strength: 6 } })
            .toArray(),
        )
      ).code,
    ).toBe(51024);
    expect(
      (
        await refused(
          coll()
            .find({}, { collation: { locale: 'en', bogus: 1 } as never })
            .toArray(),
        )
      ).code,
    ).toBe(40415);
    const caseFirst = await refused(
      coll()
        .find({}, { collation: { locale: 'en', strength: 2, caseFirst: 'upper' } })
        .toArray(),
    );
    expect(caseFirst.code).toBe(2);
    expect(
      (await refused(target().db.createCollection('bad', { collation: { locale: 'xx' } }))).code,
    ).toBe(2);
    expect(
      (await refused(coll().createIndex({ name: 1 }, { name: 'bad', collation: { locale: 'xx' } })))
        .code,
    ).toBe(2);
  });
});
