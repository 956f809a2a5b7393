import { StoreError } from '../errors';
import { cursorId, optionalNonNegative } from './arguments';
import type { Command } from './command';

export const getMoreCommand: Command = {
  name: 'getMore',
  run(ctx) {
    const id = cursorId(ctx.body.getMore, 'getMore.getMore');
    const collection = ctx.body.collection;
    if (typeof collection !== 'string') {
      throw new StoreError(
        'TypeMismatch',
        "BSON field 'getMore.collection' is the wrong type, expected type 'string'",
      );
    }
    const ns = `${ctx.db}.${collection}`;
    const batch = ctx.cursors.getMore(
      id,
      ns,
      optionalNonNegative(ctx.body, 'batchSize', 'getMore'),
    );
    return { cursor: { nextBatch: batch.docs, id: batch.id, ns } };
  },
};
