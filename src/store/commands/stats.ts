import { calculateObjectSize, type Document } from 'bson';
import type { Collection } from '../storage/collection';

/** Sizes computed from the BSON size of the documents (there are no pages or compression). */
export function collectionSizes(coll: Collection): {
  count: number;
  size: number;
  indexSizes: Document;
  totalIndexSize: number;
} {
  let size = 0;
  for (const doc of coll.docs.values()) size += calculateObjectSize(doc);
  const indexSizes: Document = {};
  let totalIndexSize = 0;
  for (const index of coll.indexes.values()) {
    // A rough per-entry cost of a hash entry: key text plus id reference.
    const bytes = (index.name === '_id_' ? coll.docs.size : index.keyCount) * 48;
    indexSizes[index.name] = bytes;
    totalIndexSize += bytes;
  }
  return { count: coll.docs.size, size, indexSizes, totalIndexSize };
}
