import { operationCollation } from '../query/collation';
import { findDocuments } from '../query/find-documents';
import { collectionArg, optionalNonNegative, optionalNumber, optionalObject } from './arguments';
import type { Command } from './command';

export const countCommand: Command = {
  name: 'count',
  run(ctx) {
    const name = collectionArg(ctx, 'count');
    const coll = ctx.catalog.collection(ctx.db, name);
    const docs = findDocuments(coll, {
      filter: optionalObject(ctx.body, 'query') ?? {},
      skip: optionalNonNegative(ctx.body, 'skip', 'count') ?? 0,
      limit: Math.abs(optionalNumber(ctx.body, 'limit') ?? 0),
      collation: operationCollation(ctx.body.collation, coll?.options),
    });
    return { n: docs.length };
  },
};
