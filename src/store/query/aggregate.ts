import type { Document } from 'bson';
import { Aggregator } from 'mingo';
import { StoreError } from '../errors';
import { isPlainObject } from '../storage/document-paths';
import { mingoOptions } from './mingo-options';

/**
 * Runs an aggregation pipeline over `docs` with mingo. `resolve` supplies the documents of other
 * collections of the same database (`$lookup`, `$unionWith`). Writing stages are not mingo's
 * business: the caller strips `$out`/`$merge` and writes through mutations.
 */
export function runPipeline(docs: Iterable<Document>, pipeline: Document[], resolve: (name: string) => Document[]): Document[] {
  for (const [i, stage] of pipeline.entries()) {
    if (!isPlainObject(stage) || Object.keys(stage).length !== 1) {
      throw new StoreError('Location40323', 'A pipeline stage specification object must contain exactly one field.');
    }
    const name = Object.keys(stage)[0];
    if ((name === '$out' || name === '$merge') && i !== pipeline.length - 1) {
      throw new StoreError('Location40601', `${name} can only be the final stage in the pipeline`);
    }
  }
  if (pipeline.length === 0) return [...docs];
  return new Aggregator(pipeline, mingoOptions(resolve)).run([...docs]) as Document[];
}
