import type { Document } from 'bson';
import type { Collection } from '../storage/collection';
import { planAccess } from './access';
import { compileFilter } from './filter';

/**
 * The stored documents matching `filter`, in natural order (or the hinted index's), at most
 * `limit` (0 = all). A `hint` naming no index of the collection is refused as in find.
 */
export function matchingDocuments(coll: Collection | undefined, filter: unknown, limit = 0, hint?: unknown): Document[] {
  const query = compileFilter(filter);
  const access = planAccess(coll, (filter as Document) ?? {}, { hint });
  const out: Document[] = [];
  for (const doc of access.docs) {
    if (query.test(doc)) {
      out.push(doc);
      if (limit && out.length >= limit) break;
    }
  }
  return out;
}
