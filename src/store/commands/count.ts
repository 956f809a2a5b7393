import type { Document } from 'bson';
import { operationCollation } from '../query/collation';
import { findDocuments, type FindSpec } from '../query/find-documents';
import type { Collection } from '../storage/collection';
import { collectionArg, optionalNonNegative, optionalNumber, optionalObject } from './arguments';
import type { Command } from './command';

export const countCommand: Command = {
  name: 'count',
  run(ctx) {
    const name = collectionArg(ctx, 'count');
    const coll = ctx.catalog.collection(ctx.db, name);
    return { n: findDocuments(coll, countSpec(ctx.body, coll)).length };
  },
};

/** The query part of a count command on `coll` (shared with explain). */
export function countSpec(body: Document, coll: Collection | undefined): FindSpec {
  return {
    filter: optionalObject(body, 'query') ?? {},
    skip: optionalNonNegative(body, 'skip', 'count') ?? 0,
    limit: Math.abs(optionalNumber(body, 'limit') ?? 0),
    hint: body.hint,
    collation: operationCollation(body.collation, coll?.options),
  };
}
