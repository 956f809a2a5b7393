import { Long, MongoClient, MongoServerError } from 'mongodb';
import { useTarget } from './target';

describe('cursors', () => {
  const target = useTarget('cursors');
  const coll = () => target().db.collection('many');

  beforeAll(async () => {
    await coll().insertMany(Array.from({ length: 250 }, (_, i) => ({ _id: i as never, i })));
  });

  it('returns results in batches continued with getMore', async () => {
    const first = await target().db.command({
      find: 'many',
      filter: {},
      sort: { _id: 1 },
      batchSize: 100,
    });
    expect(first.cursor.firstBatch).toHaveLength(100);
    const id = first.cursor.id as Long;
    expect(id.isZero()).toBe(false);
    expect(first.cursor.ns).toBe(`${target().dbName}.many`);
    const second = await target().db.command({ getMore: id, collection: 'many', batchSize: 100 });
    expect(second.cursor.nextBatch.map((d: { i: number }) => d.i)[0]).toBe(100);
    const last = await target().db.command({ getMore: id, collection: 'many' });
    expect(last.cursor.nextBatch).toHaveLength(50);
    expect(last.cursor.id.toString()).toBe('0');
  });

  it('iterates everything through the driver with a small batch size', async () => {
    const all = await coll().find({}, { batchSize: 7 }).toArray();
    expect(all).toHaveLength(250);
  });

  it('lets another connection continue a cursor', async () => {
    const first = await target().db.command({ find: 'many', filter: {}, batchSize: 10 });
    const other = await MongoClient.connect(target().uri);
    try {
      const rest = await other
        .db(target().dbName)
        .command({ getMore: first.cursor.id, collection: 'many', batchSize: 1000 });
      expect(rest.cursor.nextBatch).toHaveLength(240);
      expect(rest.cursor.id.toString()).toBe('0');
    } finally {
      await other.close();
    }
  });

  it('kills cursors and reports the unknown ones', async () => {
    const first = await target().db.command({ find: 'many', filter: {}, batchSize: 1 });
    const killed = await target().db.command({
      killCursors: 'many',
      cursors: [first.cursor.id, Long.fromNumber(12345)],
    });
    expect(killed.cursorsKilled.map(String)).toEqual([first.cursor.id.toString()]);
    expect(killed.cursorsNotFound.map(String)).toEqual(['12345']);
    const err = await target()
      .db.command({ getMore: first.cursor.id, collection: 'many' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    expect((err as MongoServerError).code).toBe(43);
  });

  it('closes a cursor the driver abandons early', async () => {
    const cursor = coll().find({}, { batchSize: 5 });
    await cursor.next();
    await cursor.close();
  });

  it('returns a single batch when asked', async () => {
    const reply = await target().db.command({
      find: 'many',
      filter: {},
      batchSize: 5,
      singleBatch: true,
    });
    expect(reply.cursor.firstBatch).toHaveLength(5);
    expect(reply.cursor.id.toString()).toBe('0');
  });
});
