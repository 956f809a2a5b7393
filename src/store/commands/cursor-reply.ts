import type { Document } from 'bson';
import type { CommandContext } from './command';

/** Opens a cursor over computed results and shapes mongod's `{cursor: {firstBatch, id, ns}}`. */
export function firstBatchReply(
  ctx: CommandContext,
  ns: string,
  docs: Document[],
  opts: { batchSize?: number; singleBatch?: boolean; noTimeout?: boolean } = {},
): Document {
  const batch = ctx.cursors.open(ns, docs, opts);
  return { cursor: { firstBatch: batch.docs, id: batch.id, ns } };
}
