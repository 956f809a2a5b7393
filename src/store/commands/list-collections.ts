import type { Document } from 'bson';
import type { Query } from '../query/mingo';
import { compileFilter } from '../query/filter';
import { cursorBatchSize, optionalBoolean, optionalObject } from './arguments';
import type { Command } from './command';
import { firstBatchReply } from './cursor-reply';

export const listCollectionsCommand: Command = {
  name: 'listCollections',
  run(ctx) {
    const filter: Query = compileFilter(optionalObject(ctx.body, 'filter') ?? {});
    const nameOnly = optionalBoolean(ctx.body, 'nameOnly') === true;
    const entries: Document[] = ctx.catalog.collections(ctx.db).map((c) =>
      nameOnly
        ? { name: c.name, type: 'collection' }
        : {
            name: c.name,
            type: 'collection',
            options: c.options,
            info: { readOnly: false },
            idIndex: {
              v: 2,
              key: { _id: 1 },
              name: '_id_',
              ...(c.options.collation ? { collation: c.options.collation } : {}),
            },
          },
    );
    return firstBatchReply(
      ctx,
      `${ctx.db}.$cmd.listCollections`,
      entries.filter((e) => filter.test(e)),
      {
        batchSize: cursorBatchSize(ctx.body),
      },
    );
  },
};
