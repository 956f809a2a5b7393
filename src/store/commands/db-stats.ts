import type { Command } from './command';
import { collectionSizes } from './stats';

export const dbStatsCommand: Command = {
  name: 'dbStats',
  run(ctx) {
    let objects = 0;
    let dataSize = 0;
    let indexes = 0;
    let indexSize = 0;
    const colls = ctx.catalog.collections(ctx.db);
    for (const coll of colls) {
      const s = collectionSizes(coll);
      objects += s.count;
      dataSize += s.size;
      indexes += coll.indexes.size;
      indexSize += s.totalIndexSize;
    }
    return {
      db: ctx.db,
      collections: colls.length,
      views: 0,
      objects,
      avgObjSize: objects ? dataSize / objects : 0,
      dataSize,
      storageSize: dataSize,
      indexes,
      indexSize,
      totalSize: dataSize + indexSize,
      scaleFactor: 1,
    };
  },
};
