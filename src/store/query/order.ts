import type { Document } from 'bson';
import { validateSort } from './find-documents';
import { collatedMingoOptions } from './collated-filter';
import type { Collation } from './collation';
import { Query } from './mingo';
import { mingoOptions } from './mingo-options';
import { originalOf, viewOf } from './mingo-view';

const MATCH_ALL = new Query({}, mingoOptions());

/** Documents in `sort` order (mongod's comparison order, strings under `collation`, via mingo). */
export function sortDocuments(
  docs: Document[],
  sort: Document | undefined,
  collation: Collation | null = null,
): Document[] {
  if (!sort || Object.keys(sort).length === 0) return docs;
  const spec = viewOf(sort);
  validateSort(spec);
  const all = collation ? new Query({}, collatedMingoOptions(collation)) : MATCH_ALL;
  return (
    all
      .find(docs.map(viewOf))
      .sort(spec as Record<string, 1 | -1>)
      .all() as Document[]
  ).map(originalOf);
}
