import type { Document } from 'bson';
import { operationCollation } from '../query/collation';
import { findDocuments, type FindSpec } from '../query/find-documents';
import type { Collection } from '../storage/collection';
import {
  collectionArg,
  optionalBoolean,
  optionalNonNegative,
  optionalNumber,
  optionalObject,
} from './arguments';
import type { Command } from './command';
import { firstBatchReply } from './cursor-reply';

/** `find`: negative limit means "one batch of that many" (legacy semantics drivers still send). */
export const findCommand: Command = {
  name: 'find',
  run(ctx) {
    const name = collectionArg(ctx, 'find');
    const body = ctx.body;
    const limitArg = optionalNumber(body, 'limit') ?? 0;
    const batchSize = optionalNonNegative(body, 'batchSize', 'find');
    const coll = ctx.catalog.collection(ctx.db, name);
    const docs = findDocuments(coll, findSpec(body, coll));
    const singleBatch = optionalBoolean(body, 'singleBatch') === true || limitArg < 0;
    return firstBatchReply(ctx, `${ctx.db}.${name}`, docs, {
      batchSize: limitArg < 0 ? Math.abs(limitArg) : batchSize,
      singleBatch,
      noTimeout: optionalBoolean(body, 'noCursorTimeout'),
    });
  },
};

/** The query part of a find command on `coll` (shared with explain). */
export function findSpec(body: Document, coll: Collection | undefined): FindSpec {
  return {
    filter: optionalObject(body, 'filter') ?? {},
    projection: optionalObject(body, 'projection'),
    sort: optionalObject(body, 'sort'),
    skip: optionalNonNegative(body, 'skip', 'find') ?? 0,
    limit: Math.abs(optionalNumber(body, 'limit') ?? 0),
    hint: body.hint,
    collation: operationCollation(body.collation, coll?.options),
  };
}
