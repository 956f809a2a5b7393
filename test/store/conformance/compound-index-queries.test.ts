import fc from 'fast-check';
import { useTarget } from './target';

/**
 * A compound index may serve a filter with equality on its leading fields (on mongod, a B-tree
 * prefix; in the embedded store, a hash of each prefix). Whatever serves it, the answer is the
 * one a scan gives: the same filters on an unindexed copy of the collection must match the same
 * documents, across documents missing fields, arrays (multikey), and writes that move a document.
 */
describe('queries on the leading fields of a compound index', () => {
  const target = useTarget('compound_prefix');
  const indexed = () => target().db.collection('indexed');
  const plain = () => target().db.collection('plain');

  const value = fc.oneof(
    fc.constantFrom('a', 'b', 'c'),
    fc.constantFrom(1, 2),
    fc.constantFrom(['a', 'b'], [1, 3]),
    fc.constant(null),
  );
  const doc = fc.record({ x: value, y: value, z: value }, { requiredKeys: [] });
  const condition = fc.oneof(
    fc.constantFrom<unknown>('a', 'b', 1, 2, 3),
    fc.constantFrom<unknown>({ $in: ['a', 2] }, { $in: ['b'] }, { $in: [] }, { $eq: 'c' }),
  );
  const filter = fc.record({ x: condition, y: condition, z: condition }, { requiredKeys: [] });

  it('match what a scan matches, through inserts, updates and deletes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(doc, { minLength: 1, maxLength: 30 }),
        fc.array(filter, { minLength: 1, maxLength: 8 }),
        async (docs, filters) => {
          await indexed()
            .drop()
            .catch(() => undefined);
          await plain()
            .drop()
            .catch(() => undefined);
          await indexed().createIndex({ x: 1, y: 1, z: 1 });
          const rows = docs.map((d, i) => ({ _id: i, ...d }));
          await indexed().insertMany(rows.map((r) => ({ ...r })) as never[]);
          await plain().insertMany(rows.map((r) => ({ ...r })) as never[]);
          // Move some documents to other keys and remove one, in both.
          for (const coll of [indexed(), plain()]) {
            await coll.updateMany({ _id: { $in: [0, 2, 4] } } as never, { $set: { y: 'b' } });
            await coll.deleteOne({ _id: 1 } as never);
          }
          for (const f of filters) {
            const ids = async (coll: ReturnType<typeof plain>) =>
              (
                await coll
                  .find(f as never, { projection: { _id: 1 } })
                  .sort({ _id: 1 })
                  .toArray()
              ).map((d) => d._id);
            expect({ filter: f, ids: await ids(indexed()) }).toEqual({
              filter: f,
              ids: await ids(plain()),
            });
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
