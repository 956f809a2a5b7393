import type { Document } from 'bson';
import { StoreError } from '../errors';
import { runPipeline } from '../query/aggregate';
import { planAccess } from '../query/access';
import { operationCollation } from '../query/collation';
import { isPlainObject } from '../storage/document-paths';
import { cursorBatchSize, optionalBoolean } from './arguments';
import { planMerge, planOut } from './aggregate-write';
import type { Command } from './command';
import { firstBatchReply } from './cursor-reply';
import { aggregateParts, leadingMatch } from './aggregate-parts';
import { explainCommand } from './explain';

/**
 * `aggregate` over a collection. A leading `$match` with an indexed equality narrows the input
 * through the index; `$out`/`$merge` are planned here and committed as one batch of mutations.
 */
export const aggregateCommand: Command = {
  name: 'aggregate',
  async run(ctx) {
    if (optionalBoolean(ctx.body, 'explain'))
      return explainCommand.run({ ...ctx, body: { explain: ctx.body, verbosity: 'queryPlanner' } });
    const { name, readStages, writeStage } = aggregateParts(ctx);
    if (!isPlainObject(ctx.body.cursor)) {
      throw new StoreError(
        'FailedToParse',
        "The 'cursor' option is required, except for aggregate with the explain argument",
      );
    }
    const coll = ctx.catalog.collection(ctx.db, name);
    const collation = operationCollation(ctx.body.collation, coll?.options);
    const access = planAccess(coll, leadingMatch(readStages), {
      hint: ctx.body.hint,
      idHack: true,
      collated: collation !== null,
    });
    const resolve = (other: string): Document[] => [
      ...(ctx.catalog.collection(ctx.db, other)?.docs.values() ?? []),
    ];
    const results = runPipeline(access.docs, readStages, resolve, collation);
    if (writeStage) {
      const bypass = optionalBoolean(ctx.body, 'bypassDocumentValidation') === true;
      const batch =
        '$out' in writeStage
          ? planOut(ctx.catalog, ctx.db, writeStage.$out, results, bypass)
          : planMerge(ctx.catalog, ctx.db, writeStage.$merge, results, bypass);
      await ctx.catalog.commit(batch);
      return firstBatchReply(ctx, `${ctx.db}.${name}`, []);
    }
    return firstBatchReply(ctx, `${ctx.db}.${name}`, results, {
      batchSize: cursorBatchSize(ctx.body),
    });
  },
};
