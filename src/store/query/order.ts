import type { Document } from 'bson';
import { Query } from 'mingo';
import { validateSort } from './find-documents';
import { mingoOptions } from './mingo-options';

const MATCH_ALL = new Query({}, mingoOptions());

/** Documents in `sort` order (mongod's comparison order, via mingo). */
export function sortDocuments(docs: Document[], sort: Document | undefined): Document[] {
  if (!sort || Object.keys(sort).length === 0) return docs;
  validateSort(sort);
  return MATCH_ALL.find(docs).sort(sort as Record<string, 1 | -1>).all() as Document[];
}
