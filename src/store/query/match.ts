import type { Document } from 'bson';
import type { Collection } from '../storage/collection';
import { planAccess } from './access';
import type { Collation } from './collation';
import { compileFilter } from './filter';

/** How a write or distinct reads: the index its `hint` names, the collation it compares strings under. */
export interface MatchOptions {
  hint?: unknown;
  collation?: Collation | null;
}

/**
 * The stored documents matching `filter`, in natural order (or the hinted index's), at most
 * `limit` (0 = all). A `hint` naming no index of the collection is refused as in find.
 */
export function matchingDocuments(
  coll: Collection | undefined,
  filter: unknown,
  limit = 0,
  options: MatchOptions = {},
): Document[] {
  const collation = options.collation ?? null;
  const query = compileFilter(filter, 'filter', collation);
  const access = planAccess(coll, (filter as Document) ?? {}, {
    hint: options.hint,
    collated: collation !== null,
  });
  const out: Document[] = [];
  for (const doc of access.docs) {
    if (query.test(doc)) {
      out.push(doc);
      if (limit && out.length >= limit) break;
    }
  }
  return out;
}
