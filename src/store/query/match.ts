import type { Document } from 'bson';
import type { Collection } from '../storage/collection';
import { candidateDocuments } from './candidates';
import type { Collation } from './collation';
import { compileFilter } from './filter';

/** The stored documents matching `filter` under `collation`, in natural order, at most `limit` (0 = all). */
export function matchingDocuments(coll: Collection | undefined, filter: unknown, limit = 0, collation: Collation | null = null): Document[] {
  const query = compileFilter(filter, 'filter', collation);
  if (!coll) return [];
  const out: Document[] = [];
  for (const doc of candidateDocuments(coll, (filter as Document) ?? {}, collation !== null)) {
    if (query.test(doc)) {
      out.push(doc);
      if (limit && out.length >= limit) break;
    }
  }
  return out;
}
