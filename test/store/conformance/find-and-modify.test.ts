import { MongoServerError } from 'mongodb';
import { useTarget } from './target';

describe('findAndModify', () => {
  const target = useTarget('fam');
  const coll = () => target().db.collection('jobs');

  beforeEach(async () => {
    await coll().deleteMany({});
    await coll().insertMany([
      { _id: 1 as never, state: 'new', prio: 2 },
      { _id: 2 as never, state: 'new', prio: 5 },
      { _id: 3 as never, state: 'done', prio: 9 },
    ]);
  });

  it('updates the first document in sort order and returns it before or after', async () => {
    const before = await coll().findOneAndUpdate(
      { state: 'new' },
      { $set: { state: 'taken' } },
      { sort: { prio: -1 } },
    );
    expect(before).toEqual({ _id: 2, state: 'new', prio: 5 });
    const after = await coll().findOneAndUpdate(
      { state: 'new' },
      { $set: { state: 'taken' } },
      { returnDocument: 'after', projection: { state: 1 } },
    );
    expect(after).toEqual({ _id: 1, state: 'taken' });
    expect(await coll().findOneAndUpdate({ state: 'new' }, { $set: { x: 1 } })).toBeNull();
  });

  it('reports lastErrorObject for updates and upserts', async () => {
    const updated = await coll().findOneAndUpdate(
      { _id: 1 as never },
      { $inc: { prio: 1 } },
      { includeResultMetadata: true },
    );
    expect(updated.lastErrorObject).toEqual({ n: 1, updatedExisting: true });
    const upserted = await coll().findOneAndUpdate(
      { _id: 10 as never },
      { $set: { state: 'new' } },
      { upsert: true, returnDocument: 'after', includeResultMetadata: true },
    );
    expect(upserted.lastErrorObject).toEqual({ n: 1, updatedExisting: false, upserted: 10 });
    expect(upserted.value).toEqual({ _id: 10, state: 'new' });
    const upsertedBefore = await coll().findOneAndUpdate(
      { _id: 11 as never },
      { $set: { state: 'new' } },
      { upsert: true, includeResultMetadata: true },
    );
    expect(upsertedBefore.value).toBeNull();
  });

  it('replaces and deletes', async () => {
    expect(
      await coll().findOneAndReplace(
        { _id: 3 as never },
        { state: 'archived' },
        { returnDocument: 'after' },
      ),
    ).toEqual({ _id: 3, state: 'archived' });
    expect(await coll().findOneAndDelete({ state: 'new' }, { sort: { prio: 1 } })).toEqual({
      _id: 1,
      state: 'new',
      prio: 2,
    });
    expect(await coll().countDocuments()).toBe(2);
  });

  it('refuses contradictory options', async () => {
    const err = await target()
      .db.command({ findAndModify: 'jobs', query: {}, remove: true, update: { $set: { a: 1 } } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    expect((err as MongoServerError).code).toBe(9);
  });
});
