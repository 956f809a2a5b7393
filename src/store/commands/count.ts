import type { Document } from 'bson';
import { findDocuments, type FindSpec } from '../query/find-documents';
import { collectionArg, optionalNonNegative, optionalNumber, optionalObject } from './arguments';
import type { Command } from './command';

export const countCommand: Command = {
  name: 'count',
  run(ctx) {
    const name = collectionArg(ctx, 'count');
    return { n: findDocuments(ctx.catalog.collection(ctx.db, name), countSpec(ctx.body)).length };
  },
};

/** The query part of a count command (shared with explain). */
export function countSpec(body: Document): FindSpec {
  return {
    filter: optionalObject(body, 'query') ?? {},
    skip: optionalNonNegative(body, 'skip', 'count') ?? 0,
    limit: Math.abs(optionalNumber(body, 'limit') ?? 0),
    hint: body.hint,
  };
}
