import { Double, Int32, Long, type Document } from 'mongodb';
import { useTarget } from './target';

/** Reads with every promotion off, so the BSON type of each value shows. */
const RAW = { promoteValues: false, promoteLongs: false } as const;

interface Doc extends Document {
  _id: number;
}

describe('BSON value types in queries, storage and updates', () => {
  const target = useTarget('value_types');
  const coll = (name = 'values') => target().db.collection<Doc>(name);
  const ids = async (filter: Document, name = 'values') =>
    (await coll(name).find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);

  describe('numeric types kept through storage', () => {
    beforeEach(async () => {
      await coll('numbers').deleteMany({});
    });

    it('returns Int32, Long and Double as they were stored, a small Long as an Int64', async () => {
      await coll('numbers').insertOne({ _id: 1, i: new Int32(5), l: Long.fromNumber(5), d: new Double(1), f: 2.5, big: Long.fromString('4611686018427387904') });
      const raw = await coll('numbers').findOne({ _id: 1 }, RAW);
      expect(raw!.i).toBeInstanceOf(Int32);
      expect(raw!.l).toBeInstanceOf(Long);
      expect(raw!.d).toBeInstanceOf(Double);
      expect(raw!.d.valueOf()).toBe(1);
      expect(raw!.f).toBeInstanceOf(Double);
      const bigints = await coll('numbers').findOne({ _id: 1 }, { useBigInt64: true });
      expect(bigints).toEqual({ _id: 1, i: 5, l: 5n, d: 1, f: 2.5, big: 4611686018427387904n });
      const projected = await coll('numbers').findOne({ _id: 1 }, { ...RAW, projection: { l: 1, d: 1 } });
      expect(projected!.l).toBeInstanceOf(Long);
      expect(projected!.d).toBeInstanceOf(Double);
    });

    it('compares every numeric type by value: equality, $in, ranges, sort and unique indexes', async () => {
      await coll('numbers').insertMany([
        { _id: 1, n: new Int32(1) },
        { _id: 2, n: Long.fromNumber(1) },
        { _id: 3, n: new Double(1) },
        { _id: 4, n: new Double(2.5) },
        { _id: 5, n: Long.fromNumber(-3) },
      ]);
      expect(await ids({ n: 1 }, 'numbers')).toEqual([1, 2, 3]);
      expect(await ids({ n: Long.fromNumber(1) }, 'numbers')).toEqual([1, 2, 3]);
      expect(await ids({ n: new Double(1) }, 'numbers')).toEqual([1, 2, 3]);
      expect(await ids({ n: { $in: [Long.fromNumber(-3), 2.5] } }, 'numbers')).toEqual([4, 5]);
      expect(await ids({ n: { $gt: 0.5, $lt: Long.fromNumber(2) } }, 'numbers')).toEqual([1, 2, 3]);
      const sorted = await coll('numbers').find({}).sort({ n: -1, _id: 1 }).toArray();
      expect(sorted.map((d) => d._id)).toEqual([4, 1, 2, 3, 5]);
      await coll('numbers').deleteMany({ _id: { $in: [2, 3] } });
      await coll('numbers').createIndex({ n: 1 }, { unique: true });
      try {
        await expect(coll('numbers').insertOne({ _id: 6, n: Long.fromNumber(1) })).rejects.toMatchObject({ code: 11000 });
        await expect(coll('numbers').insertOne({ _id: 7, n: new Double(2.5) })).rejects.toMatchObject({ code: 11000 });
      } finally {
        await coll('numbers').dropIndex('n_1');
      }
    });

    it('types the results of $inc and $mul as mongod does', async () => {
      await coll('numbers').insertOne({
        _id: 1,
        i: new Int32(5),
        max: new Int32(2147483647),
        half: new Int32(1),
        whole: new Int32(1),
        l: Long.fromNumber(5),
        keep: Long.fromNumber(9),
        m: new Int32(3),
      });
      await coll('numbers').updateOne(
        { _id: 1 },
        {
          $inc: { i: new Int32(1), max: new Int32(1), half: new Double(0.5), whole: new Double(1), l: new Int32(1), fresh: Long.fromNumber(3) },
          $mul: { m: Long.fromNumber(2), zero: new Double(2) },
          $set: { set: new Double(2) },
        },
      );
      const raw = await coll('numbers').findOne({ _id: 1 }, RAW);
      const typed = (v: unknown) => [(v as { _bsontype: string })._bsontype, Number((v as { valueOf(): unknown }).valueOf())];
      expect(typed(raw!.i)).toEqual(['Int32', 6]);
      expect(typed(raw!.max)).toEqual(['Long', 2147483648]);
      expect(typed(raw!.half)).toEqual(['Double', 1.5]);
      expect(typed(raw!.whole)).toEqual(['Double', 2]);
      expect(typed(raw!.l)).toEqual(['Long', 6]);
      expect(typed(raw!.keep)).toEqual(['Long', 9]);
      expect(typed(raw!.fresh)).toEqual(['Long', 3]);
      expect(typed(raw!.m)).toEqual(['Long', 6]);
      expect(typed(raw!.zero)).toEqual(['Double', 0]);
      expect(typed(raw!.set)).toEqual(['Double', 2]);
    });
  });
});
