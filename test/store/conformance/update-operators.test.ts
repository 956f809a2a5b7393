import { MongoServerError } from 'mongodb';
import { useTarget } from './target';

interface Item {
  _id: number;
  n?: number;
  s?: string;
  list?: number[];
  grades?: { g: number }[];
  obj?: Record<string, number>;
  m?: number;
  at?: Date;
  renamed?: Record<string, number>;
  total?: number;
  sku?: string;
  qty?: number;
  price?: number;
  created?: boolean;
  v?: number;
  dims?: { w: number };
}

describe('update operators, upserts and update errors', () => {
  const target = useTarget('updates');
  const coll = () => target().db.collection<Item>('items');

  beforeEach(async () => {
    await coll().deleteMany({});
    await coll().insertOne({
      _id: 1,
      n: 5,
      s: 'x',
      list: [1, 2, 3],
      grades: [{ g: 80 }, { g: 95 }],
      obj: { a: 1 },
    });
  });

  const get = async () => coll().findOne({ _id: 1 });

  it('applies field operators', async () => {
    await coll().updateOne(
      { _id: 1 },
      { $set: { 'obj.b': 2 }, $unset: { s: '' }, $inc: { n: 2 }, $mul: { 'obj.a': 10 } },
    );
    expect(await get()).toMatchObject({ n: 7, obj: { a: 10, b: 2 } });
    expect((await get())!.s).toBeUndefined();
    await coll().updateOne(
      { _id: 1 },
      { $min: { n: 3 }, $max: { m: 9 }, $rename: { obj: 'renamed' } },
    );
    expect(await get()).toMatchObject({ n: 3, m: 9, renamed: { a: 10, b: 2 } });
    await coll().updateOne({ _id: 1 }, { $currentDate: { at: true } });
    expect((await get())!.at).toBeInstanceOf(Date);
  });

  it('applies array operators', async () => {
    await coll().updateOne({ _id: 1 }, { $push: { list: 4 } });
    await coll().updateOne({ _id: 1 }, { $addToSet: { list: 4 } });
    await coll().updateOne({ _id: 1 }, { $pull: { list: 1 } });
    expect((await get())!.list).toEqual([2, 3, 4]);
    await coll().updateOne({ _id: 1 }, { $push: { list: { $each: [9, 8], $sort: 1 } } });
    expect((await get())!.list).toEqual([2, 3, 4, 8, 9]);
    await coll().updateOne({ _id: 1 }, { $pop: { list: -1 } });
    await coll().updateOne({ _id: 1 }, { $pullAll: { list: [8, 9] } });
    expect((await get())!.list).toEqual([3, 4]);
  });

  it('updates array elements with positional operators and arrayFilters', async () => {
    await coll().updateOne({ _id: 1, 'grades.g': 80 }, { $set: { 'grades.$.g': 81 } });
    expect((await get())!.grades).toEqual([{ g: 81 }, { g: 95 }]);
    await coll().updateOne(
      { _id: 1 },
      { $inc: { 'grades.$[hi].g': 1 } },
      { arrayFilters: [{ 'hi.g': { $gt: 90 } }] },
    );
    expect((await get())!.grades).toEqual([{ g: 81 }, { g: 96 }]);
    await coll().updateOne({ _id: 1 }, { $inc: { 'list.$[]': 10 } });
    expect((await get())!.list).toEqual([11, 12, 13]);
  });

  it('applies pipeline-style updates', async () => {
    await coll().updateOne({ _id: 1 }, [
      { $set: { total: { $add: ['$n', 10] } } },
      { $unset: 'list' },
    ]);
    const doc = await get();
    expect(doc!.total).toBe(15);
    expect(doc!.list).toBeUndefined();
  });

  it('upserts from the filter equalities with $setOnInsert, and reports the upserted _id', async () => {
    const r = await coll().updateOne(
      { sku: 'abc', qty: { $gt: 1 } },
      { $set: { price: 3 }, $setOnInsert: { created: true } },
      { upsert: true },
    );
    expect(r.upsertedCount).toBe(1);
    const doc = await coll().findOne({ _id: r.upsertedId! });
    expect(doc).toMatchObject({ sku: 'abc', price: 3, created: true });
    expect(doc!.qty).toBeUndefined();
    const again = await coll().updateOne(
      { sku: 'abc' },
      { $set: { price: 4 }, $setOnInsert: { created: false } },
      { upsert: true },
    );
    expect(again).toMatchObject({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0 });
    expect((await coll().findOne({ sku: 'abc' }))!.created).toBe(true);
    const byId = await coll().replaceOne({ _id: 7 }, { v: 1 }, { upsert: true });
    expect(byId.upsertedId).toBe(7);
    const fromRegex = await coll().updateOne(
      { sku: /^re/, 'dims.w': 2 },
      { $set: { v: 3 } },
      { upsert: true },
    );
    expect(
      await coll().findOne({ _id: fromRegex.upsertedId! }, { projection: { _id: 0 } }),
    ).toEqual({ dims: { w: 2 }, v: 3 });
    const idInReplacement = await coll().replaceOne({ sku: 'none' }, { _id: 8, v: 2 } as Item, {
      upsert: true,
    });
    expect(idInReplacement.upsertedId).toBe(8);
    expect(await coll().findOne({ _id: 8 })).toEqual({ _id: 8, v: 2 });
  });

  it('reports upserted entries per statement in a raw update', async () => {
    const reply = await target().db.command({
      update: 'items',
      updates: [
        { q: { k: 1 }, u: { $set: { v: 1 } }, upsert: true },
        { q: { _id: 1 }, u: { $set: { v: 2 } } },
        { q: { k: 2 }, u: { $set: { v: 3 } }, upsert: true },
      ],
    });
    expect(reply.n).toBe(3);
    expect(reply.nModified).toBe(1);
    expect(reply.upserted.map((u: { index: number }) => u.index)).toEqual([0, 2]);
  });

  it('refuses to change _id with ImmutableField (66)', async () => {
    const err = await coll()
      .updateOne({ _id: 1 }, { $set: { _id: 2 } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    expect((err as MongoServerError).code).toBe(66);
    expect((err as MongoServerError).message).toBe(
      "Performing an update on the path '_id' would modify the immutable field '_id'",
    );
    expect(await get()).not.toBeNull();
  });

  it('refuses unknown modifiers (9) and $inc on a string (14), changing nothing', async () => {
    const unknown = await target().db.command({
      update: 'items',
      updates: [{ q: {}, u: { $frob: { a: 1 } } }],
    });
    expect(unknown.writeErrors[0].code).toBe(9);
    expect(unknown.writeErrors[0].errmsg).toMatch(/Unknown modifier: \$frob/);
    const err = await coll()
      .updateOne({ _id: 1 }, { $inc: { s: 1 } as never })
      .catch((e: unknown) => e);
    expect((err as MongoServerError).code).toBe(14);
    const conflict = await coll()
      .updateOne({ _id: 1 }, { $set: { n: 1 }, $inc: { n: 1 } })
      .catch((e: unknown) => e);
    expect((conflict as MongoServerError).code).toBe(40);
    expect(await get()).toMatchObject({ n: 5, s: 'x' });
  });

  it('refuses a replacement document with multi: true', async () => {
    const reply = await target().db.command({
      update: 'items',
      updates: [{ q: {}, u: { a: 1 }, multi: true }],
    });
    expect(reply.writeErrors[0].code).toBe(9);
  });
});
