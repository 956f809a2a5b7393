import type { Document } from 'bson';
import type { Collection } from '../storage/collection';
import { candidateDocuments } from './candidates';
import { compileFilter } from './filter';
import { viewOf } from './mingo-view';

/** The stored documents matching `filter`, in natural order, at most `limit` (0 = all). */
export function matchingDocuments(coll: Collection | undefined, filter: unknown, limit = 0): Document[] {
  const query = compileFilter(filter);
  if (!coll) return [];
  const out: Document[] = [];
  for (const doc of candidateDocuments(coll, (filter as Document) ?? {})) {
    if (query.test(viewOf(doc))) {
      out.push(doc);
      if (limit && out.length >= limit) break;
    }
  }
  return out;
}
