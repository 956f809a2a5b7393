import { StoreError } from '../errors';
import { collectionArg } from './arguments';
import type { Command } from './command';
import { collectionSizes } from './stats';

export const collStatsCommand: Command = {
  name: 'collStats',
  run(ctx) {
    const name = collectionArg(ctx, 'collStats');
    const coll = ctx.catalog.collection(ctx.db, name);
    if (!coll)
      throw new StoreError('NamespaceNotFound', `Collection [${ctx.db}.${name}] not found.`);
    const { count, size, indexSizes, totalIndexSize } = collectionSizes(coll);
    return {
      ns: coll.ns,
      count,
      size,
      avgObjSize: count ? Math.floor(size / count) : 0,
      storageSize: size,
      nindexes: coll.indexes.size,
      indexSizes,
      totalIndexSize,
      totalSize: size + totalIndexSize,
      scaleFactor: 1,
    };
  },
};
