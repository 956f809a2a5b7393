import type { Document } from 'bson';
import { canonicalKey } from '../storage/canonical-key';
import { ID_INDEX_NAME, type Collection } from '../storage/collection';
import type { Index } from '../storage/index';
import { isPlainObject } from '../storage/document-paths';
import { holdsString } from './collated-filter';

/** The documents a filter can possibly match, and the index that found them (null: a scan). */
export interface Candidates {
  docs: Document[] | Iterable<Document>;
  index: Index | null;
}

/**
 * The documents a filter can possibly match, narrowed by a hash index when the filter has an
 * equality (or `$in`) on `_id`, on a field with a plain single-field index, or on the leading
 * fields of a plain compound index; otherwise every document. The caller still applies the whole filter to
 * each candidate. Hidden indexes are not used. Hash keys compare strings bytewise, so a string
 * equality is looked up only when the query (`collated`: it runs under a collation) and the index
 * both compare strings that way.
 */
export function findCandidates(coll: Collection, filter: Document, collated = false): Candidates {
  const found = indexedIds(coll, filter, collated);
  if (!found) return { docs: coll.docs.values(), index: null };
  return { docs: documentsOf(coll, found.ids()), index: found.index };
}

export function candidateDocuments(
  coll: Collection,
  filter: Document,
  collated = false,
): Document[] | Iterable<Document> {
  return findCandidates(coll, filter, collated).docs;
}

/**
 * The candidates through one index a query's `hint` names: its equality lookup when the filter
 * has one on the index's leading field(s), else every document the index holds (a sparse or
 * partial index holds only some, and mongod then answers from those alone).
 */
export function hintedCandidates(
  coll: Collection,
  filter: Document,
  index: Index,
  collated = false,
): Candidates {
  const found = indexedIds(coll, filter, collated, index);
  if (found) return { docs: documentsOf(coll, found.ids()), index };
  // The _id index is the documents map itself.
  return {
    docs: index.name === ID_INDEX_NAME ? coll.docs.values() : documentsOf(coll, index.allIds()),
    index,
  };
}

/** mongod's "simple _id query" (isSimpleIdQuery): the filter is one exact equality on `_id`. */
export function isSimpleIdQuery(filter: Document): boolean {
  const keys = Object.keys(filter);
  if (keys.length !== 1 || keys[0] !== '_id') return false;
  const cond = filter._id;
  if (isPlainObject(cond) && Object.keys(cond).some((k) => k.startsWith('$'))) {
    return Object.keys(cond).length === 1 && '$eq' in cond && hashable(cond.$eq);
  }
  return hashable(cond);
}

function documentsOf(coll: Collection, ids: Iterable<string>): Document[] {
  const out: Document[] = [];
  for (const id of ids) {
    const doc = coll.docs.get(id);
    if (doc) out.push(doc);
  }
  return out;
}

/**
 * What an index gives for a filter: how many ids (counted from the index's own sets, an upper
 * bound when a document holds several of the keys) and the ids themselves, made only for the
 * index chosen: a filter that several indexes serve (on a leading field they share) would
 * otherwise copy every matching id once per index.
 */
interface Found {
  size: number;
  ids: () => Iterable<string>;
  index: Index;
}

/** The index giving the fewest ids for the filter's equalities; `only` restricts the choice to one index. */
function indexedIds(
  coll: Collection,
  filter: Document,
  collated: boolean,
  only?: Index,
): Found | null {
  let best: Found | null = null;
  const consider = (found: Found | null): void => {
    if (found && (!best || found.size < best.size)) best = found;
  };
  const usable = (index: Index): boolean => (only ? index === only : !index.hidden);
  for (const [field, cond] of Object.entries(filter)) {
    if (field === '$and' && Array.isArray(cond)) {
      for (const sub of cond)
        if (isPlainObject(sub)) consider(indexedIds(coll, sub, collated, only));
      continue;
    }
    if (field.startsWith('$')) continue;
    const values = equalityValues(cond, collated);
    if (values) consider(lookup(coll, field, values, usable));
  }
  for (const index of coll.secondaryIndexes()) {
    if (
      usable(index) &&
      index.fields.length > 1 &&
      !index.spec.sparse &&
      !index.spec.partialFilterExpression
    ) {
      consider(compoundLookup(index, filter, collated));
    }
  }
  return best;
}

/** Past this many combinations of `$in` values a compound lookup is not worth it: scan instead. */
const MAX_COMPOUND_KEYS = 1_000;

/**
 * The ids a compound hash index holds for a filter with equality (or `$in`) on its leading fields,
 * as many as the filter has (all of them or a prefix); null when it has none on the first. Its keys
 * join the fields' canonical keys (Index.keysFor).
 */
function compoundLookup(index: Index, filter: Document, collated: boolean): Found | null {
  let keys: string[] = [];
  let length = 0;
  for (const field of index.fields) {
    const values = Object.hasOwn(filter, field)
      ? equalityValues(filter[field], collated || index.spec.collation !== undefined)
      : null;
    if (!values || values.length === 0) break;
    const next =
      length === 0
        ? values.map(canonicalKey)
        : keys.flatMap((prefix) => values.map((v) => `${prefix}\u0000${canonicalKey(v)}`));
    if (next.length > MAX_COMPOUND_KEYS) break;
    keys = next;
    length += 1;
  }
  if (length === 0) return null;
  const size = keys.reduce((sum, key) => sum + index.countPrefix(length, key), 0);
  return { size, ids: () => idsOfKeys(keys.map((key) => index.lookupPrefix(length, key))), index };
}

/** The ids under several keys, each once (a multikey document may sit under more than one). */
function idsOfKeys(held: Array<Iterable<string> | undefined>): Iterable<string> {
  const present = held.filter((ids) => ids !== undefined);
  if (present.length === 1 && present[0] instanceof Set) return present[0];
  const ids = new Set<string>();
  for (const some of present) for (const id of some) ids.add(id);
  return ids;
}

/**
 * The values a condition requires equality with, when they are all hashable; else null.
 * `collated`: strings do not compare bytewise, so values holding one are not hashable.
 */
function equalityValues(cond: unknown, collated: boolean): unknown[] | null {
  const usable = (v: unknown): boolean => hashable(v) && !(collated && holdsString(v));
  if (isPlainObject(cond)) {
    const keys = Object.keys(cond);
    if (keys.length === 1 && keys[0] === '$eq') return usable(cond.$eq) ? [cond.$eq] : null;
    if (keys.length === 1 && keys[0] === '$in' && Array.isArray(cond.$in)) {
      return cond.$in.every(usable) ? cond.$in : null;
    }
    return usable(cond) ? [cond] : null;
  }
  return usable(cond) ? [cond] : null;
}

// Null matches missing fields and arrays match by element or whole: both need a scan.
function hashable(v: unknown): boolean {
  if (v === null || v === undefined || Array.isArray(v) || v instanceof RegExp) return false;
  if (isPlainObject(v)) return Object.keys(v).every((k) => !k.startsWith('$'));
  const bsonType = (v as { _bsontype?: string })?._bsontype;
  return bsonType !== 'BSONRegExp';
}

function lookup(
  coll: Collection,
  field: string,
  values: unknown[],
  usable: (index: Index) => boolean,
): Found | null {
  if (field === '_id') {
    const index = coll.indexes.get(ID_INDEX_NAME)!;
    if (!usable(index)) return null;
    const ids = new Set(values.map(canonicalKey).filter((id) => coll.docs.has(id)));
    return { size: ids.size, ids: () => ids, index };
  }
  for (const index of coll.secondaryIndexes()) {
    const plain =
      index.fields.length === 1 &&
      index.fields[0] === field &&
      !index.spec.sparse &&
      !index.spec.partialFilterExpression &&
      !(index.spec.collation && values.some(holdsString));
    if (!plain || !usable(index)) continue;
    const keys = values.map(canonicalKey);
    const size = keys.reduce((sum, key) => sum + index.countPrefix(1, key), 0);
    return { size, ids: () => idsOfKeys(keys.map((key) => index.lookup(key))), index };
  }
  return null;
}
