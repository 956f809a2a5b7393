import { operationCollation } from '../query/collation';
import { findDocuments } from '../query/find-documents';
import { collectionArg, optionalBoolean, optionalNonNegative, optionalNumber, optionalObject } from './arguments';
import type { Command } from './command';
import { firstBatchReply } from './cursor-reply';

/** `find`: negative limit means "one batch of that many" (legacy semantics drivers still send). */
export const findCommand: Command = {
  name: 'find',
  run(ctx) {
    const name = collectionArg(ctx, 'find');
    const body = ctx.body;
    const limitArg = optionalNumber(body, 'limit') ?? 0;
    const skip = optionalNonNegative(body, 'skip', 'find') ?? 0;
    const batchSize = optionalNonNegative(body, 'batchSize', 'find');
    const coll = ctx.catalog.collection(ctx.db, name);
    const docs = findDocuments(coll, {
      filter: optionalObject(body, 'filter') ?? {},
      projection: optionalObject(body, 'projection'),
      sort: optionalObject(body, 'sort'),
      skip,
      limit: Math.abs(limitArg),
      collation: operationCollation(body.collation, coll?.options),
    });
    const singleBatch = optionalBoolean(body, 'singleBatch') === true || limitArg < 0;
    return firstBatchReply(ctx, `${ctx.db}.${name}`, docs, {
      batchSize: limitArg < 0 ? Math.abs(limitArg) : batchSize,
      singleBatch,
      noTimeout: optionalBoolean(body, 'noCursorTimeout'),
    });
  },
};
