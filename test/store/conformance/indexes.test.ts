import { MongoBulkWriteError, MongoServerError } from 'mongodb';
import { useTarget } from './target';

describe('indexes and unique constraints', () => {
  const target = useTarget('indexes');
  const coll = () => target().db.collection('users');

  beforeEach(async () => {
    await coll()
      .drop()
      .catch(() => undefined);
    await coll().insertMany([
      { _id: 1 as never, email: 'a@x', team: 't1', n: 1 },
      { _id: 2 as never, email: 'b@x', team: 't1', n: 2 },
    ]);
    await coll().createIndex({ email: 1 }, { unique: true });
  });

  const dupError = async (p: Promise<unknown>) => {
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    return err as MongoServerError;
  };

  it('creates, lists and drops indexes', async () => {
    expect(await coll().createIndex({ team: 1, n: -1 })).toBe('team_1_n_-1');
    const indexes = await coll().listIndexes().toArray();
    expect(indexes.map((i) => i.name)).toEqual(['_id_', 'email_1', 'team_1_n_-1']);
    expect(indexes[1]).toMatchObject({ key: { email: 1 }, unique: true });
    await coll().dropIndex('team_1_n_-1');
    await coll().createIndex({ n: 1 }, { name: 'by_n' });
    await target().db.command({ dropIndexes: 'users', index: { n: 1 } });
    expect((await coll().listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_', 'email_1']);
    await coll().createIndex({ n: 1 });
    await coll().dropIndexes();
    expect((await coll().listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_']);
  });

  it('treats an identical createIndex as a no-op and refuses a conflicting one', async () => {
    await coll().createIndex({ email: 1 }, { unique: true });
    const err = await dupError(coll().createIndex({ email: 1 }, { name: 'email_1', sparse: true }));
    expect(err.code).toBe(85);
  });

  it('refuses to drop _id_ and unknown indexes', async () => {
    expect((await dupError(coll().dropIndex('_id_'))).code).toBe(72);
    expect((await dupError(coll().dropIndex('nope'))).code).toBe(27);
  });

  it("refuses duplicate inserts with mongod's E11000 message, keyPattern and keyValue", async () => {
    const err = await dupError(coll().insertOne({ email: 'a@x' }));
    expect(err.code).toBe(11000);
    expect(err.message).toBe(
      `E11000 duplicate key error collection: ${target().dbName}.users index: email_1 dup key: { email: "a@x" }`,
    );
    expect(err.keyPattern).toEqual({ email: 1 });
    expect(err.keyValue).toEqual({ email: 'a@x' });
    const idErr = await dupError(coll().insertOne({ _id: 1 as never }));
    expect(idErr.message).toMatch(/index: _id_ dup key: \{ _id: 1 \}/);
  });

  it('refuses duplicates made by update, upsert and findAndModify', async () => {
    expect(
      (await dupError(coll().updateOne({ _id: 2 as never }, { $set: { email: 'a@x' } }))).code,
    ).toBe(11000);
    expect(
      (
        await dupError(
          coll().updateOne({ email: 'zz' }, { $set: { email: 'a@x' } }, { upsert: true }),
        )
      ).code,
    ).toBe(11000);
    expect(
      (await dupError(coll().findOneAndUpdate({ _id: 2 as never }, { $set: { email: 'a@x' } })))
        .code,
    ).toBe(11000);
    expect(await coll().findOne({ _id: 2 as never })).toMatchObject({ email: 'b@x' });
    expect(await coll().countDocuments()).toBe(2);
  });

  it('updates many documents of a unique index to new distinct values in one statement', async () => {
    await coll().updateMany({}, [{ $set: { email: { $concat: ['$email', '.new'] } } }]);
    expect((await coll().find({}).sort({ _id: 1 }).toArray()).map((d) => d.email)).toEqual([
      'a@x.new',
      'b@x.new',
    ]);
  });

  it('stops an ordered bulk write at the first duplicate and reports writeErrors', async () => {
    const err = (await coll()
      .insertMany([{ email: 'c@x' }, { email: 'a@x' }, { email: 'd@x' }])
      .catch((e: unknown) => e)) as MongoBulkWriteError;
    expect(err).toBeInstanceOf(MongoBulkWriteError);
    expect(err.result.insertedCount).toBe(1);
    expect(err.writeErrors).toHaveLength(1);
    expect((err.writeErrors as unknown as { index: number; code: number }[])[0]).toMatchObject({
      index: 1,
      code: 11000,
    });
    expect(await coll().countDocuments()).toBe(3);
  });

  it('continues an unordered bulk write past duplicates, including ones within the batch', async () => {
    const err = (await coll()
      .bulkWrite(
        [
          { insertOne: { document: { email: 'a@x' } } },
          { insertOne: { document: { email: 'e@x' } } },
          { insertOne: { document: { email: 'e@x' } } },
          { updateOne: { filter: { _id: 2 as never }, update: { $set: { email: 'a@x' } } } },
          { insertOne: { document: { email: 'f@x' } } },
        ],
        { ordered: false },
      )
      .catch((e: unknown) => e)) as MongoBulkWriteError;
    expect(err).toBeInstanceOf(MongoBulkWriteError);
    const errors = err.writeErrors as unknown as { index: number; code: number }[];
    expect(errors.map((e) => e.index).sort()).toEqual([0, 2, 3]);
    expect(errors.every((e) => e.code === 11000)).toBe(true);
    expect(await coll().countDocuments()).toBe(4);
  });

  it('reports index, code, errmsg, keyPattern and keyValue for each write error', async () => {
    const reply = await target().db.command({
      insert: 'users',
      documents: [{ email: 'a@x' }, { email: 'q@x' }],
      ordered: false,
    });
    expect(reply.n).toBe(1);
    expect(reply.writeErrors).toEqual([
      {
        index: 0,
        code: 11000,
        errmsg: `E11000 duplicate key error collection: ${target().dbName}.users index: email_1 dup key: { email: "a@x" }`,
        keyPattern: { email: 1 },
        keyValue: { email: 'a@x' },
      },
    ]);
  });

  it('enforces unique indexes on $out and $merge targets, changing nothing on a violation', async () => {
    const target2 = target().db.collection('uniq_out');
    await target2.insertOne({ _id: 'keep' as never, team: 'z' });
    await target2.createIndex({ team: 1 }, { unique: true });
    const out = await coll()
      .aggregate([{ $project: { _id: 0, team: 1 } }, { $out: 'uniq_out' }])
      .toArray()
      .catch((e: unknown) => e);
    expect((out as MongoServerError).code).toBe(11000);
    const merge = await coll()
      .aggregate([{ $project: { _id: 0, team: 1 } }, { $merge: { into: 'uniq_out' } }])
      .toArray()
      .catch((e: unknown) => e);
    expect((merge as MongoServerError).code).toBe(11000);
    expect(await target2.find({}).toArray()).toEqual([{ _id: 'keep', team: 'z' }]);
    expect((await target2.listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_', 'team_1']);
  });

  it('enforces compound unique indexes on the combination', async () => {
    await coll().createIndex({ team: 1, n: 1 }, { unique: true });
    await coll().insertOne({ email: 'g@x', team: 't2', n: 1 });
    const err = await dupError(coll().insertOne({ email: 'h@x', team: 't1', n: 1 }));
    expect(err.keyValue).toEqual({ team: 't1', n: 1 });
    expect(err.message).toMatch(/dup key: \{ team: "t1", n: 1 \}/);
  });

  it('honours sparse and partial unique indexes', async () => {
    await coll().createIndex({ nick: 1 }, { unique: true, sparse: true });
    await coll().insertMany([{ email: 'i@x' }, { email: 'j@x' }]);
    await coll().createIndex(
      { code: 1 },
      { unique: true, partialFilterExpression: { active: true } },
    );
    await coll().insertMany([
      { email: 'k@x', code: 1, active: false },
      { email: 'l@x', code: 1, active: true },
    ]);
    expect((await dupError(coll().insertOne({ email: 'm@x', code: 1, active: true }))).code).toBe(
      11000,
    );
  });

  it('fails to build a unique index over existing duplicates, leaving no index', async () => {
    const err = await dupError(coll().createIndex({ team: 1 }, { unique: true }));
    expect(err.code).toBe(11000);
    expect((await coll().listIndexes().toArray()).map((i) => i.name)).not.toContain('team_1');
  });

  it('matches numbers of different types and ObjectIds by value in unique indexes', async () => {
    await coll().createIndex({ n: 1 }, { unique: true });
    expect((await dupError(coll().insertOne({ email: 'n@x', n: 1.0 }))).code).toBe(11000);
  });

  it('finds through an index by equality and $in', async () => {
    await coll().createIndex({ team: 1 });
    expect(await coll().countDocuments({ team: 't1' })).toBe(2);
    expect(await coll().countDocuments({ team: { $in: ['t1', 'zz'] }, n: 2 })).toBe(1);
    expect(await coll().countDocuments({ email: { $in: ['a@x', 'b@x'] } })).toBe(2);
  });
});
