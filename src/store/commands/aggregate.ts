import type { Document } from 'bson';
import { StoreError } from '../errors';
import { runPipeline } from '../query/aggregate';
import { planAccess } from '../query/access';
import { operationCollation } from '../query/collation';
import { isPlainObject } from '../storage/document-paths';
import { validateCollectionName } from '../storage/namespace';
import { cursorBatchSize, optionalBoolean, requiredArray } from './arguments';
import { planMerge, planOut } from './aggregate-write';
import type { Command, CommandContext } from './command';
import { firstBatchReply } from './cursor-reply';
import { explainCommand } from './explain';

/**
 * `aggregate` over a collection. A leading `$match` with an indexed equality narrows the input
 * through the index; `$out`/`$merge` are planned here and committed as one batch of mutations.
 */
export const aggregateCommand: Command = {
  name: 'aggregate',
  async run(ctx) {
    if (optionalBoolean(ctx.body, 'explain')) return explainCommand.run({ ...ctx, body: { explain: ctx.body, verbosity: 'queryPlanner' } });
    const { name, readStages, writeStage } = aggregateParts(ctx);
    if (!isPlainObject(ctx.body.cursor)) {
      throw new StoreError('FailedToParse', "The 'cursor' option is required, except for aggregate with the explain argument");
    }
    const coll = ctx.catalog.collection(ctx.db, name);
    const collation = operationCollation(ctx.body.collation, coll?.options);
    const access = planAccess(coll, leadingMatch(readStages), { hint: ctx.body.hint, idHack: true, collated: collation !== null });
    const resolve = (other: string): Document[] => [...(ctx.catalog.collection(ctx.db, other)?.docs.values() ?? [])];
    const results = runPipeline(access.docs, readStages, resolve, collation);
    if (writeStage) {
      const bypass = optionalBoolean(ctx.body, 'bypassDocumentValidation') === true;
      const batch = '$out' in writeStage
        ? planOut(ctx.catalog, ctx.db, writeStage.$out, results, bypass)
        : planMerge(ctx.catalog, ctx.db, writeStage.$merge, results, bypass);
      await ctx.catalog.commit(batch);
      return firstBatchReply(ctx, `${ctx.db}.${name}`, []);
    }
    return firstBatchReply(ctx, `${ctx.db}.${name}`, results, { batchSize: cursorBatchSize(ctx.body) });
  },
};

/** The collection and the stages of an aggregate command, the final `$out`/`$merge` apart. */
export function aggregateParts(ctx: CommandContext): { name: string; readStages: Document[]; writeStage?: Document } {
  const target = ctx.body.aggregate;
  if (typeof target !== 'string') {
    throw new StoreError('InvalidNamespace', "{aggregate: 1} is not supported by the embedded store: aggregate needs a collection name");
  }
  const name = validateCollectionName(ctx.db, target);
  const pipeline = requiredArray(ctx.body, 'pipeline', 'aggregate') as Document[];
  const last = pipeline[pipeline.length - 1];
  const writeStage = isPlainObject(last) && ('$out' in last || '$merge' in last) ? last : undefined;
  return { name, readStages: writeStage ? pipeline.slice(0, -1) : pipeline, writeStage };
}

/** The filter of a leading `$match`, which the read narrows through an index (mongod pushes it down). */
export function leadingMatch(stages: Document[]): Document {
  const first = stages[0];
  return isPlainObject(first) && isPlainObject(first.$match) ? first.$match : {};
}
