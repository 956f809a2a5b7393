import type { Document } from 'bson';
import { Aggregator } from './mingo';
import { StoreError } from '../errors';
import { cloneDocument, isPlainObject } from '../storage/document-paths';
import { collatedFilter, collatedMingoOptions } from './collated-filter';
import type { Collation } from './collation';
import { originalOf, viewOf } from './mingo-view';
import { aliasProto, namesProto, unaliasProto } from './proto-fields';

/**
 * Runs an aggregation pipeline over `docs` with mingo. `resolve` supplies the documents of other
 * collections of the same database (`$lookup`, `$unionWith`). Writing stages are not mingo's
 * business: the caller strips `$out`/`$merge` and writes through mutations.
 */
export function runPipeline(
  docs: Iterable<Document>,
  pipeline: Document[],
  resolve: (name: string) => Document[],
  collation: Collation | null = null,
): Document[] {
  for (const [i, stage] of pipeline.entries()) {
    if (!isPlainObject(stage) || Object.keys(stage).length !== 1) {
      throw new StoreError(
        'Location40323',
        'A pipeline stage specification object must contain exactly one field.',
      );
    }
    const name = Object.keys(stage)[0];
    if ((name === '$out' || name === '$merge') && i !== pipeline.length - 1) {
      throw new StoreError('Location40601', `${name} can only be the final stage in the pipeline`);
    }
  }
  if (pipeline.length === 0) return [...docs];
  if (namesProto(pipeline)) {
    // mingo cannot take a field named __proto__: such a pipeline runs on aliased names (proto-fields.ts).
    const aliasedResolve = (name: string): Document[] => resolve(name).map(aliasProto);
    return runPipeline(
      Array.from(docs, aliasProto),
      aliasProto(pipeline),
      aliasedResolve,
      collation,
    ).map(unaliasProto);
  }
  // mingo runs without cloning (fast), but some stages ($set/$addFields/$unset/$project on nested
  // paths) then write into their input: stored documents must be copied before such a stage.
  // mingo works on views (mingo-view.ts); documents that come out unchanged are given back as
  // stored, computed ones have plain JS numbers.
  const input = mutatesInput(pipeline)
    ? Array.from(docs, (d) => cloneDocument(viewOf(d)))
    : Array.from(docs, viewOf);
  const cloningResolve = (name: string): Document[] =>
    resolve(name).map((d) => cloneDocument(viewOf(d)));
  const view = viewOf(pipeline);
  // Under a collation, `$sort` compares strings through mingo's own collation support and the
  // top-level `$match` stages through the collated operators.
  const stages = collation
    ? view.map((s) =>
        isPlainObject(s.$match) ? { $match: collatedFilter(s.$match, collation) } : s,
      )
    : view;
  return (
    new Aggregator(stages, collatedMingoOptions(collation, cloningResolve)).run(input) as Document[]
  ).map(originalOf);
}

/** Stages that only select or reorder their input documents. */
const FILTER_STAGES = new Set(['$match', '$sort', '$skip', '$limit']);
/** Stages whose output documents are all new objects. */
const FRESH_OUTPUT_STAGES = new Set(['$group', '$count', '$sortByCount', '$bucket', '$bucketAuto']);

function mutatesInput(pipeline: Document[]): boolean {
  for (const stage of pipeline) {
    const name = Object.keys(stage)[0];
    if (FRESH_OUTPUT_STAGES.has(name)) return false;
    if (!FILTER_STAGES.has(name)) return true;
  }
  return false;
}
