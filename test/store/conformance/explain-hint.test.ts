import { MongoServerError, type Document } from 'mongodb';
import { useTarget } from './target';

describe('explain and hint', () => {
  const target = useTarget('explain');
  const coll = () => target().db.collection('plans');
  const ns = () => `${target().dbName}.plans`;

  beforeAll(async () => {
    await coll().insertMany([
      { _id: 1 as never, x: 1, y: 'a' },
      { _id: 2 as never, x: 2, y: 'b' },
      { _id: 3 as never, x: 3, y: 'b' },
      { _id: 4 as never, x: 4, y: 'c' },
      { _id: 5 as never, x: 5, y: 'b' },
    ]);
    await coll().createIndex({ x: 1 });
  });

  const error = async (p: Promise<unknown>) => {
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    return err as MongoServerError;
  };
  const explainFind = (filter: Document, verbosity: 'queryPlanner' | 'executionStats') =>
    coll().find(filter).explain(verbosity);

  it('shows IDHACK for an equality on _id', async () => {
    const explained = await explainFind({ _id: 3 }, 'executionStats');
    expect(explained.queryPlanner.namespace).toBe(ns());
    expect(explained.queryPlanner.parsedQuery).toEqual({ _id: { $eq: 3 } });
    expect(explained.queryPlanner.winningPlan.stage).toBe('IDHACK');
    expect(explained.executionStats).toMatchObject({ nReturned: 1, totalDocsExamined: 1 });
  });

  it('shows FETCH over an IXSCAN of the index used for an indexed equality', async () => {
    const explained = await explainFind({ x: 4 }, 'executionStats');
    expect(explained.queryPlanner.parsedQuery).toEqual({ x: { $eq: 4 } });
    const plan = explained.queryPlanner.winningPlan;
    expect(plan.stage).toBe('FETCH');
    expect(plan.inputStage).toMatchObject({
      stage: 'IXSCAN',
      indexName: 'x_1',
      keyPattern: { x: 1 },
      isUnique: false,
      isSparse: false,
      isPartial: false,
      direction: 'forward',
    });
    expect(explained.executionStats).toMatchObject({ nReturned: 1, totalDocsExamined: 1 });
  });

  it('shows a COLLSCAN with the filter when no index serves the query', async () => {
    const explained = await explainFind({ y: 'b' }, 'executionStats');
    expect(explained.queryPlanner.winningPlan).toMatchObject({
      stage: 'COLLSCAN',
      filter: { y: { $eq: 'b' } },
      direction: 'forward',
    });
    expect(explained.executionStats).toMatchObject({
      executionSuccess: true,
      nReturned: 3,
      totalKeysExamined: 0,
      totalDocsExamined: 5,
    });
  });

  it('answers the explain command form and EOF for a missing collection', async () => {
    const explained = await target().db.command({
      explain: { find: 'plans', filter: { x: 2 } },
      verbosity: 'queryPlanner',
    });
    expect(explained.queryPlanner.winningPlan.inputStage.indexName).toBe('x_1');
    expect(explained.executionStats).toBeUndefined();
    const missing = await target().db.command({
      explain: { find: 'no_such_collection', filter: { x: 2 } },
      verbosity: 'queryPlanner',
    });
    expect(missing.queryPlanner.winningPlan.stage).toBe('EOF');
  });

  it('explains count and a $match-only aggregate', async () => {
    const fast = await target().db.command({
      explain: { count: 'plans', query: {} },
      verbosity: 'queryPlanner',
    });
    expect(fast.queryPlanner.winningPlan.stage).toBe('RECORD_STORE_FAST_COUNT');
    const counted = await target().db.command({
      explain: { count: 'plans', query: { y: 'b' } },
      verbosity: 'queryPlanner',
    });
    expect(counted.queryPlanner.winningPlan).toMatchObject({
      stage: 'COUNT',
      inputStage: { stage: 'COLLSCAN' },
    });
    const aggregated = await coll()
      .aggregate([{ $match: { x: 5 } }])
      .explain('queryPlanner');
    expect(aggregated.queryPlanner.winningPlan.inputStage).toMatchObject({
      stage: 'IXSCAN',
      indexName: 'x_1',
    });
  });

  it('accepts a hint by name or key pattern and uses that index', async () => {
    const byName = await coll().find({ y: 'b' }).sort({ _id: 1 }).hint('x_1').toArray();
    expect(byName.map((d) => d._id)).toEqual([2, 3, 5]);
    const byKey = await coll()
      .find({ x: { $gte: 4 } })
      .sort({ _id: 1 })
      .hint({ x: 1 })
      .toArray();
    expect(byKey.map((d) => d._id)).toEqual([4, 5]);
    const plan = (await coll().find({ y: 'b' }).hint('x_1').explain('queryPlanner')).queryPlanner
      .winningPlan;
    expect(plan).toMatchObject({
      stage: 'FETCH',
      inputStage: { stage: 'IXSCAN', indexName: 'x_1' },
    });
    const idPlan = (
      await coll()
        .find({ _id: 3 as never })
        .hint('_id_')
        .explain('queryPlanner')
    ).queryPlanner.winningPlan;
    expect(idPlan).toMatchObject({
      stage: 'FETCH',
      inputStage: { stage: 'IXSCAN', indexName: '_id_' },
    });
  });

  it('walks natural order backwards for hint {$natural: -1}', async () => {
    const docs = await coll().find({}).hint({ $natural: -1 }).toArray();
    expect(docs.map((d) => d._id)).toEqual([5, 4, 3, 2, 1]);
  });

  it('answers a $natural sort with a collection scan in that direction, even on an indexed field', async () => {
    const docs = await coll()
      .find({ x: { $in: [1, 2, 4] } })
      .sort({ $natural: -1 })
      .toArray();
    expect(docs.map((d) => d._id)).toEqual([4, 2, 1]);
    const plan = (
      await coll()
        .find({ x: { $in: [1, 2, 4] } })
        .sort({ $natural: -1 })
        .explain('queryPlanner')
    ).queryPlanner.winningPlan;
    expect(plan).toMatchObject({ stage: 'COLLSCAN', direction: 'backward' });
  });

  it('refuses a hint naming no index (2 BadValue) in find, count and aggregate', async () => {
    const pattern = /hint provided does not correspond to an existing index/;
    const find = await error(coll().find({ x: 1 }).hint('nope_1').toArray());
    expect(find.code).toBe(2);
    expect(find.message).toMatch(pattern);
    expect((await error(coll().find({}).hint({ y: 1 }).toArray())).code).toBe(2);
    const count = await error(
      target().db.command({ count: 'plans', query: { x: 1 }, hint: 'nope_1' }),
    );
    expect(count.code).toBe(2);
    expect(count.message).toMatch(pattern);
    const aggregate = await error(
      coll()
        .aggregate([{ $match: { x: 1 } }], { hint: 'nope_1' })
        .toArray(),
    );
    expect(aggregate.code).toBe(2);
    expect(aggregate.message).toMatch(pattern);
  });

  it('honours hints in writes and refuses unknown ones there too, changing nothing', async () => {
    const pattern = /hint provided does not correspond to an existing index/;
    const updated = await coll().updateOne({ x: 1 }, { $set: { z: 1 } }, { hint: { x: 1 } });
    expect(updated.modifiedCount).toBe(1);
    const update = await error(coll().updateOne({ x: 2 }, { $set: { z: 2 } }, { hint: 'nope_1' }));
    expect(update.code).toBe(2);
    expect(update.message).toMatch(pattern);
    const remove = await error(coll().deleteOne({ x: 2 }, { hint: 'nope_1' }));
    expect(remove.code).toBe(2);
    const modify = await error(
      coll().findOneAndUpdate({ x: 2 }, { $set: { z: 2 } }, { hint: { nope: 1 } }),
    );
    expect(modify.code).toBe(2);
    expect(await coll().findOne({ _id: 2 as never })).toEqual({ _id: 2, x: 2, y: 'b' });
    await coll().updateOne({ _id: 1 as never }, { $unset: { z: '' } });
  });
});
