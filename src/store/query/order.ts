import type { Document } from 'bson';
import { Query } from './mingo';
import { cloneDocument } from '../storage/document-paths';
import { validateSort } from './find-documents';
import { mingoOptions } from './mingo-options';
import { originalOf, retype, viewOf } from './mingo-view';

const MATCH_ALL = new Query({}, mingoOptions());

/** Documents in `sort` order (mongod's comparison order, via mingo). */
export function sortDocuments(docs: Document[], sort: Document | undefined): Document[] {
  if (!sort || Object.keys(sort).length === 0) return docs;
  const spec = viewOf(sort);
  validateSort(spec);
  return (MATCH_ALL.find(docs.map(viewOf)).sort(spec as Record<string, 1 | -1>).all() as Document[]).map(originalOf);
}

/** A find-style projection of one document. */
export function projectDocument(doc: Document, projection: Document | undefined): Document {
  if (!projection || Object.keys(projection).length === 0) return doc;
  // On a copy: mingo's nested exclusions edit their input in place.
  return retype(MATCH_ALL.find([cloneDocument(viewOf(doc))], viewOf(projection)).all()[0] as Document, doc);
}
