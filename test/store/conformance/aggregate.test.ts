import { MongoServerError } from 'mongodb';
import { useTarget } from './target';

describe('aggregation', () => {
  const target = useTarget('aggregate');
  const orders = () => target().db.collection('orders');

  beforeAll(async () => {
    await orders().insertMany([
      { _id: 1 as never, cust: 'a', items: ['x', 'y'], amount: 10, status: 'open' },
      { _id: 2 as never, cust: 'b', items: ['x'], amount: 20, status: 'open' },
      { _id: 3 as never, cust: 'a', items: [], amount: 5, status: 'closed' },
      { _id: 4 as never, cust: 'c', items: ['z'], amount: 7, status: 'open' },
    ]);
    await target()
      .db.collection('customers')
      .insertMany([
        { _id: 'a' as never, name: 'Ann' },
        { _id: 'b' as never, name: 'Bob' },
      ]);
  });

  const run = (pipeline: object[]) => orders().aggregate(pipeline).toArray();

  it('runs $match, $group, $sort, $project, $limit and $skip', async () => {
    const out = await run([
      { $match: { status: 'open' } },
      { $group: { _id: '$cust', total: { $sum: '$amount' }, n: { $sum: 1 } } },
      { $sort: { total: -1 } },
      { $skip: 1 },
      { $limit: 1 },
      { $project: { _id: 0, cust: '$_id', total: 1 } },
    ]);
    expect(out).toEqual([{ total: 10, cust: 'a' }]);
  });

  it('runs $lookup against another collection of the database', async () => {
    const out = await run([
      { $match: { _id: 2 } },
      { $lookup: { from: 'customers', localField: 'cust', foreignField: '_id', as: 'customer' } },
      { $project: { name: { $first: '$customer.name' } } },
    ]);
    expect(out).toEqual([{ _id: 2, name: 'Bob' }]);
  });

  it('runs $unwind, $sortByCount, $count and $facet', async () => {
    expect(
      await run([
        { $unwind: '$items' },
        { $sortByCount: '$items' },
        { $sort: { count: -1, _id: 1 } },
      ]),
    ).toEqual([
      { _id: 'x', count: 2 },
      { _id: 'y', count: 1 },
      { _id: 'z', count: 1 },
    ]);
    expect(await run([{ $match: { amount: { $gt: 6 } } }, { $count: 'n' }])).toEqual([{ n: 3 }]);
    const [facet] = await run([
      {
        $facet: {
          open: [{ $match: { status: 'open' } }, { $count: 'n' }],
          max: [{ $group: { _id: null, m: { $max: '$amount' } } }],
        },
      },
    ]);
    expect(facet).toEqual({ open: [{ n: 3 }], max: [{ _id: null, m: 20 }] });
  });

  it('runs $addFields, $set, $unset and $replaceRoot', async () => {
    const out = await run([
      { $match: { _id: 1 } },
      { $addFields: { double: { $multiply: ['$amount', 2] } } },
      { $set: { flag: true } },
      { $unset: ['items', 'status'] },
      { $replaceRoot: { newRoot: { d: '$double', f: '$flag', c: '$cust' } } },
    ]);
    expect(out).toEqual([{ d: 20, f: true, c: 'a' }]);
  });

  it('leaves stored documents untouched by stages that rewrite nested fields', async () => {
    await target()
      .db.collection('nested')
      .insertOne({ _id: 1 as never, n: { a: 1 } });
    await target()
      .db.collection('nested')
      .aggregate([{ $set: { 'n.b': 2 } }, { $unset: 'n.a' }])
      .toArray();
    await orders()
      .aggregate([
        { $match: { _id: 1 } },
        { $lookup: { from: 'nested', pipeline: [], as: 'j' } },
        { $unwind: '$j' },
        { $set: { 'j.n.c': 3 } },
      ])
      .toArray();
    expect(
      await target()
        .db.collection('nested')
        .findOne({ _id: 1 as never }),
    ).toEqual({ _id: 1, n: { a: 1 } });
  });

  it('returns large results in batches', async () => {
    const reply = await target().db.command({
      aggregate: 'orders',
      pipeline: [],
      cursor: { batchSize: 2 },
    });
    expect(reply.cursor.firstBatch).toHaveLength(2);
    const rest = await target().db.command({ getMore: reply.cursor.id, collection: 'orders' });
    expect(rest.cursor.nextBatch).toHaveLength(2);
    expect(rest.cursor.id.toString()).toBe('0');
  });

  it('writes results with $out, replacing the target', async () => {
    await target().db.collection('summary').insertOne({ stale: true });
    await orders()
      .aggregate([{ $group: { _id: '$cust', total: { $sum: '$amount' } } }, { $out: 'summary' }])
      .toArray();
    const summary = await target().db.collection('summary').find({}).sort({ _id: 1 }).toArray();
    expect(summary).toEqual([
      { _id: 'a', total: 15 },
      { _id: 'b', total: 20 },
      { _id: 'c', total: 7 },
    ]);
  });

  it('merges results with $merge', async () => {
    const totals = target().db.collection('totals');
    await totals.insertMany([{ _id: 'a' as never, total: 0, keep: 1 }]);
    await orders()
      .aggregate([
        { $group: { _id: '$cust', total: { $sum: '$amount' } } },
        { $merge: { into: 'totals', whenMatched: 'merge', whenNotMatched: 'insert' } },
      ])
      .toArray();
    expect(await totals.find({}).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 'a', total: 15, keep: 1 },
      { _id: 'b', total: 20 },
      { _id: 'c', total: 7 },
    ]);
  });

  it('refuses an unknown stage with 40324 and a missing cursor option with 9', async () => {
    const err = (await run([{ $frobnicate: {} }]).catch((e: unknown) => e)) as MongoServerError;
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err.code).toBe(40324);
    expect(err.message).toBe("Unrecognized pipeline stage name: '$frobnicate'");
    const noCursor = (await target()
      .db.command({ aggregate: 'orders', pipeline: [] })
      .catch((e: unknown) => e)) as MongoServerError;
    expect(noCursor.code).toBe(9);
  });
});
