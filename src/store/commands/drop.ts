import { StoreError } from '../errors';
import { collectionArg } from './arguments';
import type { Command } from './command';

/** `drop`: a missing collection is NamespaceNotFound (the driver's `drop()` ignores it, as with mongod 7). */
export const dropCommand: Command = {
  name: 'drop',
  async run(ctx) {
    const name = collectionArg(ctx, 'drop');
    const coll = ctx.catalog.collection(ctx.db, name);
    if (!coll) throw new StoreError('NamespaceNotFound', 'ns not found');
    const nIndexesWas = coll.indexes.size;
    await ctx.catalog.commit([{ op: 'dropCollection', ns: coll.ns }]);
    return { nIndexesWas, ns: coll.ns };
  },
};
