import type { Document } from 'bson';
import { isPlainObject } from '../storage/document-paths';

/**
 * The document an upsert starts from: the equality conditions of its filter (`{a: 1}`,
 * `{a: {$eq: 1}}`, inside `$and`), dotted paths expanded, as mongod does before applying the update.
 */
export function upsertSeed(filter: Document): Document {
  const seed: Document = {};
  collect(filter, seed);
  return seed;
}

function collect(filter: Document, seed: Document): void {
  for (const [field, cond] of Object.entries(filter)) {
    if (field === '$and' && Array.isArray(cond)) {
      for (const sub of cond) if (isPlainObject(sub)) collect(sub, seed);
      continue;
    }
    if (field.startsWith('$')) continue;
    if (isPlainObject(cond) && Object.keys(cond).some((k) => k.startsWith('$'))) {
      if ('$eq' in cond) setPath(seed, field, cond.$eq);
      continue;
    }
    // A regex is a pattern, not a value: mongod does not copy it into the new document.
    if (cond instanceof RegExp || (cond as { _bsontype?: string })?._bsontype === 'BSONRegExp')
      continue;
    setPath(seed, field, cond);
  }
}

function setPath(doc: Document, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur = doc;
  for (const part of parts.slice(0, -1)) {
    if (!isPlainObject(cur[part])) cur[part] = {};
    cur = cur[part] as Document;
  }
  cur[parts[parts.length - 1]] = value;
}
