import { findDocuments } from '../query/find-documents';
import { collectionArg, optionalNonNegative, optionalNumber, optionalObject } from './arguments';
import type { Command } from './command';

export const countCommand: Command = {
  name: 'count',
  run(ctx) {
    const name = collectionArg(ctx, 'count');
    const docs = findDocuments(ctx.catalog.collection(ctx.db, name), {
      filter: optionalObject(ctx.body, 'query') ?? {},
      skip: optionalNonNegative(ctx.body, 'skip', 'count') ?? 0,
      limit: Math.abs(optionalNumber(ctx.body, 'limit') ?? 0),
    });
    return { n: docs.length };
  },
};
