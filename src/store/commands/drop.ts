import { collectionArg } from './arguments';
import type { Command } from './command';

/** `drop`: since mongod 7.0 dropping a missing collection succeeds (it used to be NamespaceNotFound). */
export const dropCommand: Command = {
  name: 'drop',
  async run(ctx) {
    const name = collectionArg(ctx, 'drop');
    const coll = ctx.catalog.collection(ctx.db, name);
    if (!coll) return { ns: `${ctx.db}.${name}` };
    const nIndexesWas = coll.indexes.size;
    await ctx.catalog.commit([{ op: 'dropCollection', ns: coll.ns }]);
    return { nIndexesWas, ns: coll.ns };
  },
};
