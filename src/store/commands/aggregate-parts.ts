import type { Document } from 'bson';
import { StoreError } from '../errors';
import { isPlainObject } from '../storage/document-paths';
import { validateCollectionName } from '../storage/namespace';
import { requiredArray } from './arguments';
import type { CommandContext } from './command';

/** The collection and the stages of an aggregate command, the final `$out`/`$merge` apart. */
export function aggregateParts(ctx: CommandContext): {
  name: string;
  readStages: Document[];
  writeStage?: Document;
} {
  const target = ctx.body.aggregate;
  if (typeof target !== 'string') {
    throw new StoreError(
      'InvalidNamespace',
      '{aggregate: 1} is not supported by the embedded store: aggregate needs a collection name',
    );
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
