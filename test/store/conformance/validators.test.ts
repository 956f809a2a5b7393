import { MongoBulkWriteError, MongoServerError } from 'mongodb';
import { useTarget } from './target';

/** Collection validators ($jsonSchema or query operators), their level and action, and collMod. */
describe('document validation', () => {
  const target = useTarget('validators');
  const items = () => target().db.collection<{ _id: number; name?: string; qty?: number }>('items');
  const schema = {
    $jsonSchema: {
      bsonType: 'object',
      required: ['name'],
      properties: {
        name: { bsonType: 'string', minLength: 1 },
        qty: { bsonType: ['int', 'long'], minimum: 0 },
        tags: { bsonType: 'array', items: { bsonType: 'string' }, uniqueItems: true },
      },
    },
  };

  beforeEach(async () => {
    await items()
      .drop()
      .catch(() => undefined);
    await target().db.createCollection('items', { validator: schema });
  });

  const refused = async (p: Promise<unknown>) => {
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    return err as MongoServerError;
  };

  const expectInvalid = async (p: Promise<unknown>, id: number) => {
    const err = await refused(p);
    expect(err.code).toBe(121);
    expect(err.message).toBe('Document failed validation');
    expect(err.errInfo?.failingDocumentId).toBe(id);
  };

  it('refuses inserts that fail a $jsonSchema validator and writes nothing', async () => {
    await items().insertOne({ _id: 1, name: 'bolt', qty: 3 });
    await expectInvalid(items().insertOne({ _id: 2, qty: 3 }), 2);
    await expectInvalid(items().insertOne({ _id: 3, name: 'nut', qty: -1 }), 3);
    await expectInvalid(items().insertOne({ _id: 4, name: 'nut', qty: 1.5 }), 4);
    await expectInvalid(items().insertOne({ _id: 5, name: 'nut', tags: ['a', 'a'] } as never), 5);
    expect(await items().countDocuments()).toBe(1);
    const bulk = await items()
      .insertMany([{ _id: 6, name: 'a' }, { _id: 7 }, { _id: 8, name: 'c' }])
      .catch((e: unknown) => e);
    expect(bulk).toBeInstanceOf(MongoBulkWriteError);
    expect((bulk as MongoBulkWriteError).insertedCount).toBe(1);
    expect((bulk as MongoBulkWriteError).writeErrors).toMatchObject([{ index: 1, code: 121 }]);
    expect((await items().find().sort({ _id: 1 }).toArray()).map((d) => d._id)).toEqual([1, 6]);
  });

  it('refuses updates, upserts and findAndModify results that fail, leaving the document as it was', async () => {
    await items().insertOne({ _id: 1, name: 'bolt', qty: 3 });
    await expectInvalid(items().updateOne({ _id: 1 }, { $set: { qty: -5 } }), 1);
    await expectInvalid(items().replaceOne({ _id: 1 }, { qty: 1 }), 1);
    await expectInvalid(items().findOneAndUpdate({ _id: 1 }, { $unset: { name: '' } }), 1);
    await expectInvalid(items().updateOne({ _id: 9 }, { $set: { qty: 1 } }, { upsert: true }), 9);
    expect(await items().find().toArray()).toEqual([{ _id: 1, name: 'bolt', qty: 3 }]);
    await items().updateOne({ _id: 1 }, { $inc: { qty: 1 } });
    expect(await items().findOne({ _id: 1 })).toEqual({ _id: 1, name: 'bolt', qty: 4 });
  });

  it('lets bypassDocumentValidation through', async () => {
    await items().insertOne({ _id: 1, qty: -1 }, { bypassDocumentValidation: true });
    await items().updateOne({ _id: 1 }, { $set: { qty: -2 } }, { bypassDocumentValidation: true });
    expect(await items().findOne({ _id: 1 })).toEqual({ _id: 1, qty: -2 });
  });

  it('applies validationLevel moderate, validationAction warn and level off through collMod', async () => {
    await items().insertMany(
      [
        { _id: 1, qty: -1 },
        { _id: 2, name: 'ok' },
      ],
      { bypassDocumentValidation: true },
    );
    await target().db.command({ collMod: 'items', validationLevel: 'moderate' });
    // An update of a document that already failed is not checked; one of a valid document is.
    await items().updateOne({ _id: 1 }, { $set: { qty: -3 } });
    await expectInvalid(items().updateOne({ _id: 2 }, { $unset: { name: '' } }), 2);
    await expectInvalid(items().insertOne({ _id: 3 }), 3);
    await target().db.command({ collMod: 'items', validationAction: 'warn' });
    await items().insertOne({ _id: 4 });
    await target().db.command({
      collMod: 'items',
      validationAction: 'error',
      validationLevel: 'off',
    });
    await items().insertOne({ _id: 5 });
    const [info] = await target().db.listCollections({ name: 'items' }).toArray();
    expect((info as unknown as { options: object }).options).toMatchObject({
      validator: schema,
      validationLevel: 'off',
      validationAction: 'error',
    });
    expect(await items().countDocuments()).toBe(4);
  });

  it('accepts query-operator validators and replaces the validator with collMod', async () => {
    await target().db.command({ collMod: 'items', validator: { qty: { $gt: 0 } } });
    await items().insertOne({ _id: 1, qty: 2 });
    await expectInvalid(items().insertOne({ _id: 2, qty: 0 }), 2);
    await expectInvalid(items().insertOne({ _id: 3, name: 'no qty' }), 3);
    const [info] = await target().db.listCollections({ name: 'items' }).toArray();
    expect((info as unknown as { options: object }).options).toMatchObject({
      validator: { qty: { $gt: 0 } },
    });
  });

  it('validates what $out and $merge write, unless bypassDocumentValidation', async () => {
    const source = target().db.collection<{ _id: number; name?: string; qty?: number }>('incoming');
    await source.drop().catch(() => undefined);
    await source.insertMany([
      { _id: 1, name: 'a' },
      { _id: 2, qty: 5 },
    ]);
    await items().insertOne({ _id: 9, name: 'kept' });
    await expectInvalid(source.aggregate([{ $out: 'items' }]).toArray(), 2);
    expect(await items().find().toArray()).toEqual([{ _id: 9, name: 'kept' }]);
    // ($merge is not atomic in mongod: only the failing document is merged here.)
    await expectInvalid(
      source.aggregate([{ $match: { _id: 2 } }, { $merge: { into: 'items' } }]).toArray(),
      2,
    );
    expect(await items().countDocuments()).toBe(1);
    await source
      .aggregate([{ $merge: { into: 'items' } }], { bypassDocumentValidation: true })
      .toArray();
    expect(await items().countDocuments()).toBe(3);
    await source.aggregate([{ $out: 'items' }], { bypassDocumentValidation: true }).toArray();
    expect((await items().find().sort({ _id: 1 }).toArray()).map((d) => d._id)).toEqual([1, 2]);
    const [info] = await target().db.listCollections({ name: 'items' }).toArray();
    expect((info as unknown as { options: object }).options).toMatchObject({ validator: schema });
  });

  it('evaluates $jsonSchema in queries too', async () => {
    await items().insertMany(
      [
        { _id: 1, name: 'a', qty: 1 },
        { _id: 2, qty: -1 },
        { _id: 3, name: 'c', qty: 2.5 },
      ],
      { bypassDocumentValidation: true },
    );
    expect((await items().find(schema).sort({ _id: 1 }).toArray()).map((d) => d._id)).toEqual([1]);
    expect(await items().countDocuments({ $nor: [schema] })).toBe(2);
    const notObject = await refused(
      items()
        .find({ $jsonSchema: { bsonType: 'object', properties: { qty: { bsonType: 'integer' } } } })
        .toArray(),
    );
    expect(notObject.code).toBe(2);
  });

  it('refuses malformed validators and options', async () => {
    await target()
      .db.collection('bad')
      .drop()
      .catch(() => undefined);
    expect(
      (await refused(target().db.createCollection('bad', { validator: { $foo: 1 } }))).code,
    ).toBe(2);
    expect(
      (
        await refused(
          target().db.createCollection('bad', { validator: { $jsonSchema: { bogus: 1 } } }),
        )
      ).code,
    ).toBe(9);
    expect(
      (
        await refused(
          target().db.createCollection('bad', {
            validator: {},
            validationLevel: 'sometimes' as never,
          }),
        )
      ).code,
    ).toBe(2);
    expect(
      (await refused(target().db.command({ collMod: 'missing_coll', validator: {} }))).code,
    ).toBe(26);
    expect(await target().db.listCollections({ name: 'bad' }).toArray()).toEqual([]);
  });
});
