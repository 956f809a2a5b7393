import type { Document } from 'bson';
import { StoreError } from '../errors';
import { runPipeline } from '../query/aggregate';
import { candidateDocuments } from '../query/candidates';
import { operationCollation } from '../query/collation';
import { isPlainObject } from '../storage/document-paths';
import { validateCollectionName } from '../storage/namespace';
import { cursorBatchSize, optionalBoolean, requiredArray } from './arguments';
import { planMerge, planOut } from './aggregate-write';
import type { Command } from './command';
import { firstBatchReply } from './cursor-reply';

/**
 * `aggregate` over a collection. A leading `$match` with an indexed equality narrows the input
 * through the index; `$out`/`$merge` are planned here and committed as one batch of mutations.
 */
export const aggregateCommand: Command = {
  name: 'aggregate',
  async run(ctx) {
    const target = ctx.body.aggregate;
    if (typeof target !== 'string') {
      throw new StoreError('InvalidNamespace', "{aggregate: 1} is not supported by the embedded store: aggregate needs a collection name");
    }
    const name = validateCollectionName(ctx.db, target);
    const pipeline = requiredArray(ctx.body, 'pipeline', 'aggregate') as Document[];
    if (optionalBoolean(ctx.body, 'explain')) {
      throw new StoreError('IllegalOperation', 'explain is not supported by the embedded store');
    }
    if (!isPlainObject(ctx.body.cursor)) {
      throw new StoreError('FailedToParse', "The 'cursor' option is required, except for aggregate with the explain argument");
    }
    const last = pipeline[pipeline.length - 1];
    const writeStage = isPlainObject(last) && ('$out' in last || '$merge' in last) ? last : undefined;
    const readStages = writeStage ? pipeline.slice(0, -1) : pipeline;
    const coll = ctx.catalog.collection(ctx.db, name);
    const collation = operationCollation(ctx.body.collation, coll?.options);
    const first = readStages[0];
    const source = !coll
      ? []
      : isPlainObject(first) && isPlainObject(first.$match)
        ? candidateDocuments(coll, first.$match, collation !== null)
        : coll.docs.values();
    const resolve = (other: string): Document[] => [...(ctx.catalog.collection(ctx.db, other)?.docs.values() ?? [])];
    const results = runPipeline(source, readStages, resolve, collation);
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
