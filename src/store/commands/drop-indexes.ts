import { StoreError } from '../errors';
import { isPlainObject } from '../storage/document-paths';
import { ID_INDEX_NAME } from '../storage/collection';
import { collectionArg } from './arguments';
import type { Command } from './command';

/** `dropIndexes` with `"*"` (all but `_id_`), a name, a list of names, or a key pattern. */
export const dropIndexesCommand: Command = {
  name: 'dropIndexes',
  aliases: ['deleteIndexes'],
  async run(ctx) {
    const name = collectionArg(ctx, 'dropIndexes');
    const coll = ctx.catalog.collection(ctx.db, name);
    if (!coll) throw new StoreError('NamespaceNotFound', `ns not found ${ctx.db}.${name}`);
    const target = ctx.body.index;
    const before = coll.indexes.size;
    let names: string[];
    if (target === '*') {
      names = [...coll.secondaryIndexes()].map((i) => i.name);
    } else if (typeof target === 'string' || Array.isArray(target)) {
      names = typeof target === 'string' ? [target] : target.map(String);
      for (const n of names) {
        if (n === ID_INDEX_NAME) throw new StoreError('InvalidOptions', 'cannot drop _id index');
        if (!coll.indexes.has(n))
          throw new StoreError('IndexNotFound', `index not found with name [${n}]`);
      }
    } else if (isPlainObject(target)) {
      const wanted = JSON.stringify(target);
      const found = [...coll.indexes.values()].find((i) => JSON.stringify(i.spec.key) === wanted);
      if (!found)
        throw new StoreError(
          'IndexNotFound',
          `can't find index with key: ${JSON.stringify(target)}`,
        );
      if (found.name === ID_INDEX_NAME)
        throw new StoreError('InvalidOptions', 'cannot drop _id index');
      names = [found.name];
    } else {
      throw new StoreError(
        'TypeMismatch',
        "BSON field 'dropIndexes.index' must be a string, an array of strings or an object",
      );
    }
    if (names.length) await ctx.catalog.commit([{ op: 'dropIndexes', ns: coll.ns, names }]);
    return { nIndexesWas: before };
  },
};
