import { Binary, DBRef, Decimal128, Double, Int32, Long, ObjectId, type Document } from 'mongodb';
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

  describe('$type', () => {
    beforeAll(async () => {
      await coll().deleteMany({});
      await coll().insertMany([
        { _id: 1, v: new Int32(42) },
        { _id: 2, v: Long.fromString('9223372036854775807') },
        { _id: 3, v: new Double(1.5) },
        { _id: 4, v: Decimal128.fromString('1.5') },
        { _id: 5, v: new ObjectId() },
        { _id: 6, v: new Binary(Buffer.from([1, 2]), 0) },
        { _id: 7, v: 'text' },
        { _id: 8, v: Long.fromNumber(7) },
        { _id: 9, v: new Double(3) },
        { _id: 10, v: [new Int32(1), 'x'] },
        { _id: 11, v: true },
        { _id: 12, v: new Date(0) },
        { _id: 13, v: null },
        { _id: 14, v: { a: 1 } },
      ]);
    });

    it('tells every BSON type apart, by alias and by number', async () => {
      expect(await ids({ v: { $type: 'objectId' } })).toEqual([5]);
      expect(await ids({ v: { $type: 7 } })).toEqual([5]);
      expect(await ids({ v: { $type: 'binData' } })).toEqual([6]);
      expect(await ids({ v: { $type: 5 } })).toEqual([6]);
      expect(await ids({ v: { $type: 'long' } })).toEqual([2, 8]);
      expect(await ids({ v: { $type: 18 } })).toEqual([2, 8]);
      expect(await ids({ v: { $type: 'int' } })).toEqual([1, 10]);
      expect(await ids({ v: { $type: 'double' } })).toEqual([3, 9]);
      expect(await ids({ v: { $type: 'decimal' } })).toEqual([4]);
      expect(await ids({ v: { $type: 'string' } })).toEqual([7, 10]);
      expect(await ids({ v: { $type: 'array' } })).toEqual([10]);
      expect(await ids({ v: { $type: 'bool' } })).toEqual([11]);
      expect(await ids({ v: { $type: 'date' } })).toEqual([12]);
      expect(await ids({ v: { $type: 'null' } })).toEqual([13]);
      expect(await ids({ v: { $type: 'object' } })).toEqual([14]);
      expect(await ids({ v: { $type: ['double', 'decimal'] } })).toEqual([3, 4, 9]);
    });

    it("matches every numeric type with 'number'", async () => {
      expect(await ids({ v: { $type: 'number' } })).toEqual([1, 2, 3, 4, 8, 9, 10]);
    });

    it('refuses an unknown type alias', async () => {
      await expect(coll().findOne({ v: { $type: 'nothing' } })).rejects.toMatchObject({
        code: 2,
        codeName: 'BadValue',
      });
    });
  });

  describe('numeric types kept through storage', () => {
    beforeEach(async () => {
      await coll('numbers').deleteMany({});
    });

    it('returns Int32, Long and Double as they were stored, a small Long as an Int64', async () => {
      await coll('numbers').insertOne({
        _id: 1,
        i: new Int32(5),
        l: Long.fromNumber(5),
        d: new Double(1),
        f: 2.5,
        big: Long.fromString('4611686018427387904'),
      });
      const raw = await coll('numbers').findOne({ _id: 1 }, RAW);
      expect(raw!.i).toBeInstanceOf(Int32);
      expect(raw!.l).toBeInstanceOf(Long);
      expect(raw!.d).toBeInstanceOf(Double);
      expect(raw!.d.valueOf()).toBe(1);
      expect(raw!.f).toBeInstanceOf(Double);
      const bigints = await coll('numbers').findOne({ _id: 1 }, { useBigInt64: true });
      expect(bigints).toEqual({ _id: 1, i: 5, l: 5n, d: 1, f: 2.5, big: 4611686018427387904n });
      const projected = await coll('numbers').findOne(
        { _id: 1 },
        { ...RAW, projection: { l: 1, d: 1 } },
      );
      expect(projected!.l).toBeInstanceOf(Long);
      expect(projected!.d).toBeInstanceOf(Double);
    });

    it('keeps the types of the values a positional or computing projection passes through', async () => {
      await coll('numbers').insertOne({
        _id: 1,
        a: [Long.fromNumber(1), Long.fromNumber(2)],
        d: new Double(3),
        n: new Int32(4),
      });
      const positional = await coll('numbers').findOne(
        { a: 2 },
        { ...RAW, projection: { 'a.$': 1 } },
      );
      expect(positional!.a).toEqual([Long.fromNumber(2)]);
      const computed = await coll('numbers').findOne(
        { _id: 1 },
        { ...RAW, projection: { d: 1, sum: { $add: ['$n', 1] } } },
      );
      expect(computed!.d).toEqual(new Double(3));
      expect(computed!.sum).toEqual(new Int32(5));
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
        await expect(
          coll('numbers').insertOne({ _id: 6, n: Long.fromNumber(1) }),
        ).rejects.toMatchObject({ code: 11000 });
        await expect(
          coll('numbers').insertOne({ _id: 7, n: new Double(2.5) }),
        ).rejects.toMatchObject({ code: 11000 });
      } finally {
        await coll('numbers').dropIndex('n_1');
      }
    });

    it('reads command arguments of any numeric type (mongosh sends doubles)', async () => {
      await coll('numbers').insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
      const reply = await target().db.command({
        find: 'numbers',
        filter: {},
        sort: { _id: new Double(-1) },
        limit: new Double(2),
        batchSize: Long.fromNumber(5),
      });
      expect(reply.cursor.firstBatch.map((d: Doc) => d._id)).toEqual([3, 2]);
      expect(
        await target().db.command({
          delete: 'numbers',
          deletes: [{ q: {}, limit: new Double(1) }],
        }),
      ).toMatchObject({ n: 1 });
      expect(await coll('numbers').createIndex({ k: new Double(1) as never })).toBe('k_1');
      await coll('numbers').dropIndex('k_1');
      const collated = await target().db.command({
        find: 'numbers',
        filter: {},
        collation: { locale: 'en', strength: new Double(1) },
      });
      expect(collated.cursor.firstBatch).toHaveLength(2);
    });

    it('types the results of $inc, $mul, $min and $max as mongod does', async () => {
      await coll('numbers').insertOne({
        _id: 1,
        i: new Int32(5),
        max: new Int32(2147483647),
        half: new Int32(1),
        whole: new Int32(1),
        l: Long.fromNumber(5),
        keep: Long.fromNumber(9),
        m: new Int32(3),
        top: new Int32(2),
        low: new Int32(0),
      });
      await coll('numbers').updateOne(
        { _id: 1 },
        {
          $inc: {
            i: new Int32(1),
            max: new Int32(1),
            half: new Double(0.5),
            whole: new Double(1),
            l: new Int32(1),
            fresh: Long.fromNumber(3),
          },
          $mul: { m: Long.fromNumber(2), zero: new Double(2) },
          $set: { set: new Double(2) },
          $max: { keep: Long.fromNumber(8), top: Long.fromNumber(4) },
          $min: { low: new Double(-1) },
        },
      );
      const raw = await coll('numbers').findOne({ _id: 1 }, RAW);
      const typed = (v: unknown) => [
        (v as { _bsontype: string })._bsontype,
        Number((v as { valueOf(): unknown }).valueOf()),
      ];
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
      expect(typed(raw!.top)).toEqual(['Long', 4]);
      expect(typed(raw!.low)).toEqual(['Double', -1]);
    });

    it('types positional writes and array operators as mongod does, and writes a change of type alone', async () => {
      await coll('numbers').insertOne({
        _id: 1,
        a: [{ n: new Int32(1) }, { n: Long.fromNumber(2) }],
        list: [Long.fromNumber(1), new Double(2), new Int32(3)],
        set: [new Int32(1)],
        pop: [Long.fromNumber(1), new Double(2.5), Long.fromNumber(3)],
        pulls: [Long.fromNumber(1), new Int32(2), Long.fromNumber(3)],
        bits: Long.fromNumber(1),
        same: new Int32(1),
        decInc: new Int32(1),
        decMul: Decimal128.fromString('2.50'),
      });
      await coll('numbers').updateOne({ _id: 1, 'a.n': 2 }, {
        $inc: { 'a.$.n': new Int32(1) },
        $push: { list: { $each: [Long.fromNumber(0)], $sort: 1 } },
        $addToSet: { set: Long.fromNumber(1) },
        $pop: { pop: -1 },
        $pullAll: { pulls: [2] },
        $bit: { bits: { or: new Int32(4) } },
        $mul: { decMul: Long.fromNumber(2) },
      } as never);
      await coll('numbers').updateOne(
        { _id: 1 },
        { $inc: { 'a.$[e].n': Long.fromNumber(1), decInc: Decimal128.fromString('0.5') } },
        { arrayFilters: [{ 'e.n': 1 }] },
      );
      expect(
        await coll('numbers').updateOne({ _id: 1 }, { $set: { same: new Double(1) } }),
      ).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
      expect(
        await coll('numbers').updateOne({ _id: 1 }, { $set: { same: new Double(1) } }),
      ).toMatchObject({ matchedCount: 1, modifiedCount: 0 });
      const raw = await coll('numbers').findOne({ _id: 1 }, RAW);
      const typed = (v: unknown) => [
        (v as { _bsontype: string })._bsontype,
        Number((v as { valueOf(): unknown }).valueOf()),
      ];
      expect(raw!.a.map((e: Document) => typed(e.n))).toEqual([
        ['Long', 2],
        ['Long', 3],
      ]);
      expect(raw!.list.map(typed)).toEqual([
        ['Long', 0],
        ['Long', 1],
        ['Double', 2],
        ['Int32', 3],
      ]);
      expect(raw!.set.map(typed)).toEqual([['Int32', 1]]);
      expect(raw!.pop.map(typed)).toEqual([
        ['Double', 2.5],
        ['Long', 3],
      ]);
      expect(raw!.pulls.map(typed)).toEqual([
        ['Long', 1],
        ['Long', 3],
      ]);
      expect(typed(raw!.bits)).toEqual(['Long', 5]);
      expect(typed(raw!.same)).toEqual(['Double', 1]);
      expect(raw!.decInc).toEqual(Decimal128.fromString('1.5'));
      expect(raw!.decMul).toEqual(Decimal128.fromString('5.00'));
    });
  });

  describe('$jsonSchema bsonType', () => {
    it('tells the numeric types apart as they are stored, and bounds every one', async () => {
      await coll('schema').deleteMany({});
      await coll('schema').insertMany([
        { _id: 1, v: new Int32(1) },
        { _id: 2, v: Long.fromNumber(1) },
        { _id: 3, v: new Double(1) },
        { _id: 4, v: 3e9 },
        { _id: 5, v: Decimal128.fromString('1') },
      ]);
      const typed = (bsonType: string) =>
        ids({ $jsonSchema: { required: ['v'], properties: { v: { bsonType } } } }, 'schema');
      expect(await typed('int')).toEqual([1]);
      expect(await typed('long')).toEqual([2]);
      expect(await typed('double')).toEqual([3, 4]);
      expect(await typed('decimal')).toEqual([5]);
      expect(await typed('number')).toEqual([1, 2, 3, 4, 5]);
      // The numeric keywords read every numeric type.
      expect(
        await ids({ $jsonSchema: { properties: { v: { multipleOf: 2 } } } }, 'schema'),
      ).toEqual([4]);
      expect(await ids({ $jsonSchema: { properties: { v: { minimum: 2 } } } }, 'schema')).toEqual([
        4,
      ]);
    });
  });

  describe('query operators on values mingo reads differently', () => {
    beforeAll(async () => {
      await coll('misc').deleteMany({});
      await coll('misc').insertMany([
        {
          _id: 1,
          title: 'A',
          b: new Binary(Buffer.from([1, 2]), 0),
          bits: new Binary(Buffer.from([0b101, 0b10]), 0),
          n: Long.fromNumber(2 ** 40),
        },
        {
          _id: 2,
          title: ['A', 'B'],
          b: new Binary(Buffer.from([1, 2]), 5),
          bits: new Binary(Buffer.from([0b10]), 0),
          n: 5,
        },
        { _id: 3, title: 'B', b: new Binary(Buffer.from([1, 3]), 0) },
        { _id: 4, b: new Binary(Buffer.from([1, 2, 3]), 0) },
        { _id: 5, b: new Binary(Buffer.from([9]), 0) },
        { _id: 6, members: [new DBRef('users', 1 as never), new DBRef('users', 2 as never)] },
        { _id: 7, members: [new DBRef('users', 3 as never, 'other')] },
      ]);
    });

    it('$all matches a scalar field holding the value', async () => {
      expect(await ids({ title: { $all: ['A'] } }, 'misc')).toEqual([1, 2]);
      expect(await ids({ title: { $all: ['A', 'B'] } }, 'misc')).toEqual([2]);
      expect(await ids({ title: { $all: [] } }, 'misc')).toEqual([]);
      // An update finds its documents with the same reading.
      expect(
        await coll('misc').updateOne({ title: { $all: ['B'] }, _id: 3 }, { $set: { seen: true } }),
      ).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
    });

    it('orders BinData by length, then subtype, then bytes', async () => {
      const at = new Binary(Buffer.from([1, 2]), 0);
      expect(await ids({ b: { $gt: at } }, 'misc')).toEqual([2, 3, 4]);
      expect(await ids({ b: { $gte: at } }, 'misc')).toEqual([1, 2, 3, 4]);
      expect(await ids({ b: { $lt: at } }, 'misc')).toEqual([5]);
      expect(await ids({ b: { $lte: at } }, 'misc')).toEqual([1, 5]);
    });

    it('$bits* operators test the bits of BinData and of 64-bit integers', async () => {
      expect(await ids({ bits: { $bitsAllSet: [0, 2, 9] } }, 'misc')).toEqual([1]);
      expect(
        await ids({ bits: { $bitsAllSet: new Binary(Buffer.from([0b101])) } }, 'misc'),
      ).toEqual([1]);
      expect(await ids({ bits: { $bitsAnySet: 2 } }, 'misc')).toEqual([2]);
      expect(await ids({ bits: { $bitsAllClear: [1, 3] } }, 'misc')).toEqual([1]);
      expect(await ids({ bits: { $bitsAnyClear: [0, 9] } }, 'misc')).toEqual([2]);
      expect(await ids({ n: { $bitsAllSet: [40] } }, 'misc')).toEqual([1]);
      expect(await ids({ n: { $bitsAllSet: 5 } }, 'misc')).toEqual([2]);
    });

    it('reads $ref, $id and $db as the fields of a DBRef', async () => {
      expect(await ids({ members: { $elemMatch: { $id: 1 } } }, 'misc')).toEqual([6]);
      expect(await ids({ members: { $elemMatch: { $ref: 'users', $id: 3 } } }, 'misc')).toEqual([
        7,
      ]);
      expect(await ids({ members: { $elemMatch: { $db: 'other' } } }, 'misc')).toEqual([7]);
      expect(await ids({ 'members.$id': 2 }, 'misc')).toEqual([6]);
      expect(await ids({ members: { $ref: 'users', $id: 2 } }, 'misc')).toEqual([6]);
      const found = await coll('misc').findOne({ _id: 6 });
      expect(found!.members[0]).toBeInstanceOf(DBRef);
    });
  });
});
