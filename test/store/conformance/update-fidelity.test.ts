import { Binary, MongoServerError, type Document } from 'mongodb';
import { useTarget } from './target';

interface Doc extends Document {
  _id: number;
}

/** Update cases where the exact mongod 7.0 behaviour is easy to get wrong. */
describe('update fidelity: positional paths, $pull conditions, field names, values and errors', () => {
  const target = useTarget('update_fidelity');
  const coll = () => target().db.collection<Doc>('docs');

  beforeEach(async () => {
    await coll().deleteMany({});
  });

  const get = async (id = 1) => coll().findOne({ _id: id });
  const failure = async (p: Promise<unknown>): Promise<MongoServerError> => {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MongoServerError);
    return err as MongoServerError;
  };

  describe('positional paths under the same array', () => {
    beforeEach(async () => {
      await coll().insertOne({
        _id: 1,
        children: [
          { name: 'a', n: 0 },
          { name: 'b', n: 0 },
        ],
      });
    });

    it('applies two $[] paths of one $set', async () => {
      const r = await coll().updateOne(
        { _id: 1 },
        { $set: { 'children.$[].name': 'x', 'children.$[].n': 2 } },
      );
      expect(r.modifiedCount).toBe(1);
      expect((await get())!.children).toEqual([
        { name: 'x', n: 2 },
        { name: 'x', n: 2 },
      ]);
    });

    it('applies two $ paths to the element the query matched', async () => {
      await coll().updateOne(
        { _id: 1, 'children.name': 'b' },
        { $set: { 'children.$.name': 'x', 'children.$.n': 2 } },
      );
      expect((await get())!.children).toEqual([
        { name: 'a', n: 0 },
        { name: 'x', n: 2 },
      ]);
    });

    it('applies two $[e] paths, the filter judged on the elements as they were', async () => {
      await coll().updateOne(
        { _id: 1 },
        { $set: { 'children.$[e].name': 'x', 'children.$[e].n': 2 } },
        { arrayFilters: [{ 'e.name': 'a' }] },
      );
      expect((await get())!.children).toEqual([
        { name: 'x', n: 2 },
        { name: 'b', n: 0 },
      ]);
    });

    it('takes $ from the element matching an $elemMatch of several fields', async () => {
      await coll().updateOne(
        { _id: 1, children: { $elemMatch: { name: 'b', n: { $lte: 0 } } } },
        { $set: { 'children.$.n': 7 } },
      );
      expect((await get())!.children).toEqual([
        { name: 'a', n: 0 },
        { name: 'b', n: 7 },
      ]);
    });

    it('applies $set and $addToSet on sibling fields of the $ element', async () => {
      await coll().updateOne(
        { _id: 1, 'children.name': 'a' },
        { $set: { 'children.$.a': 1 }, $addToSet: { 'children.$.b': 't' } },
      );
      expect((await get())!.children).toEqual([
        { name: 'a', n: 0, a: 1, b: ['t'] },
        { name: 'b', n: 0 },
      ]);
    });

    it('applies $inc and $set through $[] on different fields', async () => {
      await coll().updateOne(
        { _id: 1 },
        { $inc: { 'children.$[].n': 1 }, $set: { 'children.$[].name': 'y' } },
      );
      expect((await get())!.children).toEqual([
        { name: 'y', n: 1 },
        { name: 'y', n: 1 },
      ]);
    });

    it('refuses the same path or a path and its prefix with ConflictingUpdateOperators (40), changing nothing', async () => {
      const same = await failure(
        coll().updateOne(
          { _id: 1 },
          { $set: { 'children.$[].name': 'x' }, $unset: { 'children.$[].name': '' } },
        ),
      );
      expect(same.code).toBe(40);
      const prefix = await failure(
        coll().updateOne({ _id: 1 }, { $set: { 'children.$[]': {}, 'children.$[].n': 1 } }),
      );
      expect(prefix.code).toBe(40);
      const plain = await failure(
        coll().updateOne({ _id: 1 }, { $set: { children: [] }, $inc: { 'children.n': 1 } }),
      );
      expect(plain.code).toBe(40);
      expect(plain.message).toBe(
        "Updating the path 'children.n' would create a conflict at 'children'",
      );
      expect((await get())!.children).toEqual([
        { name: 'a', n: 0 },
        { name: 'b', n: 0 },
      ]);
    });

    it('applies two array filters on one array unless they select the same element', async () => {
      const filters = { arrayFilters: [{ 'i.name': 'a' }, { 'j.name': 'b' }] };
      await coll().updateOne(
        { _id: 1 },
        { $set: { 'children.$[i].n': 1, 'children.$[j].n': 2 } },
        filters,
      );
      expect((await get())!.children).toEqual([
        { name: 'a', n: 1 },
        { name: 'b', n: 2 },
      ]);
      const overlap = { arrayFilters: [{ 'i.n': { $gte: 1 } }, { 'j.n': 2 }] };
      const err = await failure(
        coll().updateOne(
          { _id: 1 },
          { $set: { 'children.$[i].n': 5, 'children.$[j].n': 6 } },
          overlap,
        ),
      );
      expect(err.code).toBe(40);
      const mixed = await failure(
        coll().updateOne({ _id: 1 }, { $set: { 'children.$[].n': 5, 'children.0.name': 'z' } }),
      );
      expect(mixed.code).toBe(40);
      expect((await get())!.children).toEqual([
        { name: 'a', n: 1 },
        { name: 'b', n: 2 },
      ]);
    });
  });

  describe('$pull with a logical condition on document elements', () => {
    beforeEach(async () => {
      await coll().insertOne({
        _id: 1,
        m: [
          { n: 'a', k: 1 },
          { n: 'b', k: 2 },
          { n: 'c', k: 1 },
        ],
      });
    });

    it('pulls the elements matching $or', async () => {
      const r = await coll().updateOne(
        { _id: 1 },
        { $pull: { m: { $or: [{ n: 'a' }, { n: 'b' }] } } as never },
      );
      expect(r).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
      expect((await get())!.m).toEqual([{ n: 'c', k: 1 }]);
    });

    it('pulls the elements matching $and', async () => {
      await coll().updateOne(
        { _id: 1 },
        { $pull: { m: { $and: [{ k: 1 }, { n: { $gt: 'a' } }] } } as never },
      );
      expect((await get())!.m).toEqual([
        { n: 'a', k: 1 },
        { n: 'b', k: 2 },
      ]);
    });

    it('pulls with a field condition next to $or', async () => {
      await coll().updateOne(
        { _id: 1 },
        { $pull: { m: { k: 1, $or: [{ n: 'c' }, { n: 'z' }] } } as never },
      );
      expect((await get())!.m).toEqual([
        { n: 'a', k: 1 },
        { n: 'b', k: 2 },
      ]);
    });
  });

  describe('dollar-prefixed field names', () => {
    it('stores a top-level $-prefixed field set by an upsert that inserts', async () => {
      const r = await coll().updateOne({ _id: 5 }, { $set: { $price: 1, q: 2 } }, { upsert: true });
      expect(r.upsertedId).toBe(5);
      expect(await get(5)).toEqual({ _id: 5, $price: 1, q: 2 });
    });

    it('stores nested $-prefixed fields set by an upsert, and by an update of an existing document', async () => {
      await coll().updateOne({ _id: 6 }, { $set: { a: { $b: 1 } } }, { upsert: true });
      expect(await get(6)).toEqual({ _id: 6, a: { $b: 1 } });
      await coll().updateOne({ _id: 6 }, { $set: { 'a.$c': 2 } });
      expect(await get(6)).toEqual({ _id: 6, a: { $b: 1, $c: 2 } });
    });

    it('stores $-prefixed fields written by any operator of an upsert that inserts', async () => {
      await coll().updateOne(
        { _id: 8 },
        { $inc: { $count: 1 }, $push: { $log: 'x' }, $max: { 'a.$m': 3 } } as never,
        { upsert: true },
      );
      expect(await get(8)).toEqual({ _id: 8, $count: 1, $log: ['x'], a: { $m: 3 } });
    });

    it('refuses a top-level $-prefixed field in an update of an existing document (52)', async () => {
      await coll().insertOne({ _id: 7, q: 1 });
      const err = await failure(
        coll().updateOne({ _id: 7 }, { $set: { $price: 1 } }, { upsert: true }),
      );
      expect(err.code).toBe(52);
      expect(err.message).toBe(
        "The dollar ($) prefixed field '$price' in '$price' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.",
      );
      expect(await get(7)).toEqual({ _id: 7, q: 1 });
    });
  });

  describe('__proto__ as a field name', () => {
    const ownValue = (o: unknown, key: string): unknown =>
      Object.getOwnPropertyDescriptor(o, key)?.value;

    it('stores a __proto__ field set inside a value, as its own field', async () => {
      await coll().insertOne({ _id: 1 });
      const r = await coll().updateOne(
        { _id: 1 },
        { $set: { p: JSON.parse('{"__proto__": "abcd", "q": 1}') } },
      );
      expect(r.modifiedCount).toBe(1);
      const doc = await get();
      expect(Object.keys(doc!.p)).toEqual(['__proto__', 'q']);
      expect(ownValue(doc!.p, '__proto__')).toBe('abcd');
      expect(await coll().countDocuments({ 'p.q': 1 })).toBe(1);
    });

    it('renames a field to a path under __proto__ without touching any prototype', async () => {
      await coll().insertOne({ _id: 1, a: 5 });
      await coll().updateOne({ _id: 1 }, { $rename: { a: '__proto__.x' } });
      const doc = await get();
      expect(Object.keys(doc!)).toEqual(['_id', '__proto__']);
      expect(ownValue(doc, '__proto__')).toEqual({ x: 5 });
      expect(({} as { x?: unknown }).x).toBeUndefined();
      expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
    });

    it('applies the other operators to fields under __proto__ as to any field', async () => {
      await coll().insertOne({ _id: 1 });
      await coll().updateOne({ _id: 1 }, {
        $inc: { '__proto__.n': 2 },
        $push: { 'p.__proto__': 'a' },
      } as never);
      const doc = await get();
      expect(ownValue(doc, '__proto__')).toEqual({ n: 2 });
      expect(ownValue(doc!.p, '__proto__')).toEqual(['a']);
      expect(({} as { n?: unknown }).n).toBeUndefined();
    });
  });

  it('counts a change of Binary subtype as a modification', async () => {
    await coll().insertOne({ _id: 1, bin: new Binary(Buffer.from([1, 2, 3]), 128) });
    const r = await coll().updateOne(
      { _id: 1 },
      { $set: { bin: new Binary(Buffer.from([1, 2, 3]), 0) } },
    );
    expect(r.modifiedCount).toBe(1);
    expect(((await get())!.bin as Binary).sub_type).toBe(0);
    const same = await coll().updateOne(
      { _id: 1 },
      { $set: { bin: new Binary(Buffer.from([1, 2, 3]), 0) } },
    );
    expect(same.modifiedCount).toBe(0);
  });

  it('refuses to create a field inside an array of documents or a scalar with PathNotViable (28)', async () => {
    await coll().insertOne({ _id: 1, comments: [{ body: 'a' }], n: 5 });
    const inArray = await failure(coll().updateOne({ _id: 1 }, { $set: { 'comments.body': 'x' } }));
    expect(inArray.code).toBe(28);
    expect(inArray.message).toBe(
      'Cannot create field \'body\' in element {comments: [ { body: "a" } ]}',
    );
    const inScalar = await failure(coll().updateOne({ _id: 1 }, { $inc: { 'n.x': 1 } }));
    expect(inScalar.code).toBe(28);
    expect(inScalar.message).toBe("Cannot create field 'x' in element {n: 5}");
    expect(await get()).toEqual({ _id: 1, comments: [{ body: 'a' }], n: 5 });
  });

  it('refuses $push onto a field that is not an array with BadValue (2)', async () => {
    await coll().insertOne({ _id: 1, num: 5 });
    const err = await failure(coll().updateOne({ _id: 1 }, { $push: { num: 6 } as never }));
    expect(err.code).toBe(2);
    expect(err.message).toBe(
      "The field 'num' must be an array but is of type int in document {_id: 1}",
    );
    expect(await get()).toEqual({ _id: 1, num: 5 });
  });

  it('refuses the other array operators on a non-array, each with its own mongod error', async () => {
    await coll().insertOne({ _id: 1, num: 5, s: 'x' });
    const addToSet = await failure(
      coll().updateOne({ _id: 1 }, { $addToSet: { s: 'y' } as never }),
    );
    expect([addToSet.code, addToSet.message]).toEqual([
      2,
      "Cannot apply $addToSet to non-array field. Field named 's' has non-array type string",
    ]);
    const pop = await failure(coll().updateOne({ _id: 1 }, { $pop: { num: 1 } as never }));
    expect([pop.code, pop.message]).toEqual([
      14,
      "Path 'num' contains an element of non-array type 'int'",
    ]);
    const pull = await failure(coll().updateOne({ _id: 1 }, { $pull: { num: 5 } as never }));
    expect([pull.code, pull.message]).toEqual([2, 'Cannot apply $pull to a non-array value']);
    const pullAbsent = await coll().updateOne(
      { _id: 1 },
      { $pull: { none: 5 } as never, $pop: { 'num.x': 1 } as never },
    );
    expect(pullAbsent).toMatchObject({ matchedCount: 1, modifiedCount: 0 });
    expect(await get()).toEqual({ _id: 1, num: 5, s: 'x' });
  });

  it('refuses positional paths that have no element to stand for (2)', async () => {
    await coll().insertOne({ _id: 1, list: [1, 2], n: 5 });
    const noMatch = await failure(coll().updateOne({ _id: 1 }, { $set: { 'list.$': 0 } }));
    expect([noMatch.code, noMatch.message]).toEqual([
      2,
      'The positional operator did not find the match needed from the query.',
    ]);
    const missing = await failure(coll().updateOne({ _id: 1 }, { $set: { 'none.$[]': 0 } }));
    expect([missing.code, missing.message]).toEqual([
      2,
      "The path 'none' must exist in the document in order to apply array updates.",
    ]);
    const noFilter = await failure(coll().updateOne({ _id: 1 }, { $set: { 'list.$[e]': 0 } }));
    expect([noFilter.code, noFilter.message]).toEqual([
      2,
      "No array filter found for identifier 'e' in path 'list.$[e]'",
    ]);
    const unused = await failure(
      coll().updateOne({ _id: 1 }, { $set: { n: 0 } }, { arrayFilters: [{ x: 1 }] }),
    );
    expect([unused.code, unused.message]).toEqual([
      9,
      "The array filter for identifier 'x' was not used in the update { $set: { n: 0 } }",
    ]);
    const twice = await failure(
      coll().updateOne(
        { _id: 9 },
        { $set: { 'list.$[e]': 0 } },
        { arrayFilters: [{ e: 1 }, { e: 2 }] },
      ),
    );
    expect([twice.code, twice.message]).toEqual([
      9,
      'Found multiple array filters with the same top-level field name e',
    ]);
    await coll().updateOne(
      { _id: 1 },
      { $set: { 'list.$[e]': 0 } },
      { arrayFilters: [{ $or: [{ e: 1 }, { e: { $gt: 1 } }] }] },
    );
    expect((await get())!.list).toEqual([0, 0]);
    await coll().updateOne({ _id: 1 }, { $set: { list: [1, 2] } });
    expect(await get()).toEqual({ _id: 1, list: [1, 2], n: 5 });
  });

  it('refuses to rename out of an array element, and renames an array field', async () => {
    await coll().insertOne({ _id: 1, a: [{ x: 1 }], b: [2] });
    const err = await failure(coll().updateOne({ _id: 1 }, { $rename: { 'a.0.x': 'y' } }));
    expect([err.code, err.message]).toEqual([
      2,
      "The source field cannot be an array element, 'a.0.x' in doc with _id: 1 has an array field called 'a'",
    ]);
    await coll().updateOne({ _id: 1 }, { $rename: { b: 'c' } });
    expect(await get()).toEqual({ _id: 1, a: [{ x: 1 }], c: [2] });
  });

  it('adds the fields an update creates in path order, whatever the operators', async () => {
    await coll().insertOne({ _id: 1, m: 0 });
    await coll().updateOne(
      { _id: 1 },
      { $set: { z: 1, 'y.b': 1 }, $inc: { 'y.a': 1, b: 1 }, $rename: { m: 'a' } },
    );
    const doc = await get();
    expect(Object.keys(doc!)).toEqual(['_id', 'a', 'b', 'y', 'z']);
    expect(Object.keys(doc!.y)).toEqual(['a', 'b']);
  });

  it('treats field names shared with Object.prototype members as ordinary missing fields', async () => {
    await coll().insertOne({ _id: 1 });
    await coll().updateOne({ _id: 1 }, {
      $inc: { constructor: 2 },
      $push: { toString: 'a' },
      $set: { 'valueOf.x': 1 },
    } as never);
    expect(await get()).toEqual({ _id: 1, constructor: 2, toString: ['a'], valueOf: { x: 1 } });
  });
});
