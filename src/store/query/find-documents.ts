import type { Document } from 'bson';
import { StoreError } from '../errors';
import type { Collection } from '../storage/collection';
import { cloneDocument, isPlainObject } from '../storage/document-paths';
import { candidateDocuments } from './candidates';
import { compileFilter, describeType } from './filter';
import { originalOf, retype, viewOf } from './mingo-view';

export interface FindSpec {
  filter?: unknown;
  projection?: unknown;
  sort?: unknown;
  skip?: number;
  /** 0 = no limit. */
  limit?: number;
}

/** Runs a find over one collection (missing collection → no documents), all results at once. */
export function findDocuments(coll: Collection | undefined, spec: FindSpec): Document[] {
  const query = compileFilter(spec.filter);
  const projection = viewOf(optionalObject(spec.projection, 'projection'));
  let sort = viewOf(optionalObject(spec.sort, 'sort'));
  if (!coll) return [];
  let source: Iterable<Document> = candidateDocuments(coll, (spec.filter as Document) ?? {});
  if (sort && '$natural' in sort) {
    // Natural order is insertion order; -1 walks it backwards.
    if (sort.$natural === -1) source = [...source].reverse();
    const { $natural: _n, ...rest } = sort;
    sort = Object.keys(rest).length ? rest : undefined;
  }
  if (sort) validateSort(sort);
  let cursor = query.find(Array.from(source, viewOf));
  if (sort) cursor = cursor.sort(sort as Record<string, 1 | -1>);
  if (spec.skip) cursor = cursor.skip(spec.skip);
  if (spec.limit) cursor = cursor.limit(spec.limit);
  const page = cursor.all() as Document[];
  if (!projection || Object.keys(projection).length === 0) return page.map(originalOf);
  // Projection runs on copies of the page: mingo's exclusion of nested paths edits its input in
  // place. The query is applied again so positional projections ("a.$") see their condition.
  // Each projected document gets the numeric types of its stored one back.
  const projected = query.find(page.map(cloneDocument), projection).all() as Document[];
  return projected.map((doc, i) => retype(doc, originalOf(page[i])));
}

function optionalObject(v: unknown, name: string): Document | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isPlainObject(v)) {
    throw new StoreError('TypeMismatch', `"${name}" had the wrong type. Expected object, found ${describeType(v)}`);
  }
  return v;
}

export function validateSort(sort: Document): void {
  for (const [field, dir] of Object.entries(sort)) {
    const ok = dir === 1 || dir === -1 || (isPlainObject(dir) && '$meta' in dir);
    if (!ok) {
      throw new StoreError('BadValue', `$sort key ordering must be 1 (for ascending) or -1 (for descending), got ${field}: ${JSON.stringify(dir)}`);
    }
  }
}
