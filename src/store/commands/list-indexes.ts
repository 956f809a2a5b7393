import { StoreError } from '../errors';
import { collectionArg, cursorBatchSize } from './arguments';
import type { Command } from './command';
import { firstBatchReply } from './cursor-reply';

export const listIndexesCommand: Command = {
  name: 'listIndexes',
  run(ctx) {
    const name = collectionArg(ctx, 'listIndexes');
    const coll = ctx.catalog.collection(ctx.db, name);
    if (!coll) throw new StoreError('NamespaceNotFound', `ns does not exist: ${ctx.db}.${name}`);
    const specs = [...coll.indexes.values()].map((i) => ({ ...i.spec }));
    return firstBatchReply(ctx, `${ctx.db}.$cmd.listIndexes.${name}`, specs, { batchSize: cursorBatchSize(ctx.body) });
  },
};
