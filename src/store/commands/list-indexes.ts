import { StoreError } from '../errors';
import { ID_INDEX_NAME } from '../storage/collection';
import { collectionArg, cursorBatchSize } from './arguments';
import type { Command } from './command';
import { firstBatchReply } from './cursor-reply';

export const listIndexesCommand: Command = {
  name: 'listIndexes',
  run(ctx) {
    const name = collectionArg(ctx, 'listIndexes');
    const coll = ctx.catalog.collection(ctx.db, name);
    if (!coll) throw new StoreError('NamespaceNotFound', `ns does not exist: ${ctx.db}.${name}`);
    // The _id index follows the collection's default collation, as in mongod.
    const idCollation = coll.options.collation ? { collation: coll.options.collation } : {};
    const specs = [...coll.indexes.values()].map((i) =>
      i.name === ID_INDEX_NAME ? { ...i.spec, ...idCollation } : { ...i.spec },
    );
    return firstBatchReply(ctx, `${ctx.db}.$cmd.listIndexes.${name}`, specs, {
      batchSize: cursorBatchSize(ctx.body),
    });
  },
};
