import type { Document } from 'bson';
import type { Query } from '../query/mingo';
import { StoreError } from '../errors';
import { canonicalKey } from './canonical-key';
import { isPlainObject, MISSING, valuesAtPath } from './document-paths';
import type { IndexSpec } from './index-spec';
import { formatKeyValue } from './format-key';
import { collationKey, parseCollation, type Collation } from '../query/collation';
import { mingoOptions } from '../query/mingo-options';
import { storedQuery } from '../query/stored-query';

/** One index key of a document: its canonical hash key and the values it was made from. */
export interface IndexKey {
  key: string;
  values: unknown[];
}

/** The ids of one key: a lone id as itself (every key of a unique index), more in a Set. */
type Ids = string | Set<string>;

/** A field reaching several values (an array on its path): the document has several keys. */
const MANY = Symbol('many');

/**
 * A hash index: canonical key → ids (canonical `_id` keys) of the documents holding it. It serves
 * equality and `$in` lookups in constant time and enforces uniqueness; range queries scan.
 */
export class Index {
  readonly fields: string[];
  /** Each field's path, split once: keys are made per document and index. */
  private readonly paths: string[][];
  private readonly entries = new Map<string, Ids>();
  /**
   * For a compound index, its whole keys by each proper prefix of its fields (`prefixes[0]`: the
   * first field alone), so that a filter with equality on the leading fields only is served as a
   * B-tree index serves it on mongod. They hold keys, not ids: a document costs an entry per
   * prefix only when it brings a new whole key.
   */
  private readonly prefixes: Array<Map<string, Ids>>;
  private readonly partial: Query | null;
  /** Strings in keys compare under this collation (null: bytewise). */
  private readonly collation: Collation | null;
  private current: IndexSpec;
  /**
   * The documents to fill the index from on its first use (`fillOnUse`), null once filled: a data
   * directory loads without building indexes that nothing reads or writes through yet.
   */
  private unfilled: (() => Map<string, Document>) | null = null;

  constructor(spec: IndexSpec) {
    this.current = spec;
    this.collation = spec.collation ? storedCollation(spec.collation) : null;
    this.fields = Object.keys(spec.key);
    this.paths = this.fields.map((f) => f.split('.'));
    this.prefixes = this.fields.slice(1).map(() => new Map());
    try {
      this.partial = spec.partialFilterExpression
        ? storedQuery(spec.partialFilterExpression, mingoOptions())
        : null;
      this.partial?.test({});
    } catch (err) {
      throw new StoreError(
        'BadValue',
        `Error in specification ${JSON.stringify(spec.key)} :: caused by :: invalid partialFilterExpression: ${(err as Error).message}`,
      );
    }
  }

  get spec(): IndexSpec {
    return this.current;
  }

  get name(): string {
    return this.current.name;
  }

  /** Takes a spec with the same name, key and key options (collMod's `hidden`): the entries stay valid. */
  updateSpec(spec: IndexSpec): void {
    this.current = spec;
  }

  /** A hidden index is maintained (and still enforces uniqueness) but no query uses it. */
  get hidden(): boolean {
    return this.current.hidden === true;
  }

  get unique(): boolean {
    return this.spec.unique === true || this.spec.name === '_id_';
  }

  /** The keys a document contributes (none when sparse/partial leave it out). */
  keysFor(doc: Document): IndexKey[] {
    if (this.partial && !this.partial.test(doc)) return [];
    if (this.fields.length === 1) return this.singleFieldKeys(doc);
    const perField = this.fields.map((f) => valuesAtPath(doc, f));
    if (this.spec.sparse && perField.every((vals) => vals.length === 1 && vals[0] === MISSING))
      return [];
    const keys: IndexKey[] = [];
    const seen = new Set<string>();
    // Compound keys over array fields are the cartesian product, as in a multikey index.
    const walk = (i: number, values: unknown[]): void => {
      if (i === perField.length) {
        const key = values.map((v) => (v === MISSING ? 'N' : this.keyOf(v))).join('\u0000');
        if (!seen.has(key)) {
          seen.add(key);
          keys.push({ key, values: values.map((v) => (v === MISSING ? null : v)) });
        }
        return;
      }
      for (const v of perField[i]) walk(i + 1, [...values, v]);
    };
    walk(0, []);
    return keys;
  }

  // The common case without the cartesian-product machinery.
  private singleFieldKeys(doc: Document): IndexKey[] {
    const values = valuesAtPath(doc, this.fields[0]);
    if (this.spec.sparse && values.length === 1 && values[0] === MISSING) return [];
    if (values.length === 1) {
      const v = values[0] === MISSING ? null : values[0];
      return [{ key: values[0] === MISSING ? 'N' : this.keyOf(v), values: [v] }];
    }
    const keys = new Map<string, IndexKey>();
    for (const raw of values) {
      const v = raw === MISSING ? null : raw;
      const key = raw === MISSING ? 'N' : this.keyOf(v);
      if (!keys.has(key)) keys.set(key, { key, values: [v] });
    }
    return [...keys.values()];
  }

  private keyOf(v: unknown): string {
    return this.collation && typeof v === 'string'
      ? collationKey(v, this.collation)
      : canonicalKey(v);
  }

  add(id: string, doc: Document): void {
    this.filled();
    const lone = this.loneKey(doc);
    if (lone === MANY) {
      for (const { key } of this.keysFor(doc)) this.addKey(key, id);
    } else if (lone !== undefined) {
      this.addKey(lone, id);
    }
  }

  /**
   * Fills an empty index from every document at once (building an index, loading a data
   * directory). The ids of a key are gathered in an array and made a Set once: constructing a
   * Set from an array costs a fraction of adding its ids one by one.
   */
  fill(docs: Iterable<[string, Document]>): void {
    this.unfilled = null;
    if (this.entries.size > 0)
      throw new Error(`index ${this.name} is not empty: fill() builds a new index`);
    const gathered = new Map<string, string | string[]>();
    const gather = (key: string, id: string): void => {
      const held = gathered.get(key);
      if (held === undefined) gathered.set(key, id);
      else if (typeof held === 'string') gathered.set(key, [held, id]);
      else held.push(id);
    };
    for (const [id, doc] of docs) {
      const lone = this.loneKey(doc);
      if (lone === MANY) {
        for (const { key } of this.keysFor(doc)) gather(key, id);
      } else if (lone !== undefined) {
        gather(lone, id);
      }
    }
    for (const [key, held] of gathered) {
      this.entries.set(key, typeof held === 'string' ? held : new Set(held));
      this.eachPrefix(key, (map, prefix) => addTo(map, prefix, key));
    }
  }

  /**
   * Fills the index from `docs()`, the collection's own map, when something first uses it (a
   * lookup, a write): whatever it holds then. Adding a document already there, or removing one not
   * yet removed from `docs`, leaves the same entries, so a write may trigger the fill.
   */
  fillOnUse(docs: () => Map<string, Document>): void {
    if (this.entries.size > 0)
      throw new Error(`index ${this.name} is not empty: fillOnUse() defers a new index`);
    this.unfilled = docs;
  }

  private filled(): void {
    if (this.unfilled) this.fill(this.unfilled());
  }

  remove(id: string, doc: Document): void {
    this.filled();
    const lone = this.loneKey(doc);
    if (lone === MANY) {
      for (const { key } of this.keysFor(doc)) this.removeKey(key, id);
    } else if (lone !== undefined) {
      this.removeKey(lone, id);
    }
  }

  /**
   * The document's key when it has exactly one (no array on any field's path), undefined when it
   * has none (left out by `sparse` or the partial filter), MANY otherwise (then `keysFor` makes
   * them). The same keys as `keysFor`, without the values and the cartesian-product machinery:
   * this runs for every document and index when a data directory loads.
   */
  private loneKey(doc: Document): string | undefined | typeof MANY {
    if (this.partial && !this.partial.test(doc)) return undefined;
    let key = '';
    let missing = 0;
    for (let i = 0; i < this.paths.length; i++) {
      const value = loneValue(doc, this.paths[i]);
      if (value === MANY) return MANY;
      if (value === MISSING) missing++;
      if (i > 0) key += '\u0000';
      key += value === MISSING ? 'N' : this.keyOf(value);
    }
    return this.spec.sparse && missing === this.paths.length ? undefined : key;
  }

  private addKey(key: string, id: string): void {
    if (addTo(this.entries, key, id))
      this.eachPrefix(key, (map, prefix) => addTo(map, prefix, key));
  }

  private removeKey(key: string, id: string): void {
    if (removeFrom(this.entries, key, id))
      this.eachPrefix(key, (map, prefix) => removeFrom(map, prefix, key));
  }

  /** The ids holding a whole key (every field's canonical key, joined as keysFor joins them). */
  lookup(key: string): ReadonlySet<string> | undefined {
    this.filled();
    const ids = this.entries.get(key);
    return typeof ids === 'string' ? new Set([ids]) : ids;
  }

  /** The ids whose first `length` fields hold `key` (joined likewise); `length` may be all fields. */
  lookupPrefix(length: number, key: string): Iterable<string> | undefined {
    this.filled();
    if (length === this.fields.length) return this.lookup(key);
    const keys = this.prefixes[length - 1]?.get(key);
    return keys === undefined ? undefined : this.idsOfKeys(keys);
  }

  /** How many ids `lookupPrefix` gives, without making them: a document holding several of the keys counts once per key. */
  countPrefix(length: number, key: string): number {
    this.filled();
    if (length === this.fields.length) return sizeOf(this.entries.get(key));
    let count = 0;
    for (const whole of each(this.prefixes[length - 1]?.get(key)))
      count += sizeOf(this.entries.get(whole));
    return count;
  }

  /** Every id the index holds (all documents, unless it is sparse or partial). */
  allIds(): Set<string> {
    this.filled();
    const ids = new Set<string>();
    for (const held of this.entries.values()) for (const id of each(held)) ids.add(id);
    return ids;
  }

  private *idsOfKeys(keys: Ids): Generator<string> {
    for (const key of each(keys)) yield* each(this.entries.get(key));
  }

  private eachPrefix(key: string, visit: (map: Map<string, Ids>, prefix: string) => void): void {
    let end = -1;
    for (const map of this.prefixes) {
      end = key.indexOf('\u0000', end + 1);
      visit(map, key.slice(0, end));
    }
  }

  get keyCount(): number {
    this.filled();
    return this.entries.size;
  }

  /** mongod's E11000 error for a key of this index already held by another document. */
  duplicateError(ns: string, values: unknown[]): StoreError {
    const keyValue: Document = {};
    this.fields.forEach((f, i) => (keyValue[f] = values[i]));
    const keyPattern = { ...this.spec.key };
    return new StoreError(
      'DuplicateKey',
      `E11000 duplicate key error collection: ${ns} index: ${this.name} dup key: ${formatKeyValue(keyValue)}`,
      { keyPattern, keyValue },
    );
  }
}

/**
 * The one value a path reaches without meeting an array (as `valuesAtPath` walks it), MISSING
 * when it reaches none, MANY when an array is on the way or at the end.
 */
function loneValue(doc: Document, parts: string[]): unknown {
  let value: unknown = doc;
  for (const part of parts) {
    if (Array.isArray(value)) return MANY;
    if (!isPlainObject(value) || !(part in value)) return MISSING;
    value = value[part];
  }
  return Array.isArray(value) ? MANY : value;
}

const sizeOf = (ids: Ids | undefined): number =>
  ids === undefined ? 0 : typeof ids === 'string' ? 1 : ids.size;

const each = (ids: Ids | undefined): Iterable<string> =>
  ids === undefined ? [] : typeof ids === 'string' ? [ids] : ids;

/** Adds `id` under `key`; true when the key is new to the map. */
function addTo(map: Map<string, Ids>, key: string, id: string): boolean {
  const ids = map.get(key);
  if (ids === undefined) {
    map.set(key, id);
    return true;
  }
  if (typeof ids !== 'string') ids.add(id);
  else if (ids !== id) map.set(key, new Set([ids, id]));
  return false;
}

/** Removes `id` from under `key`; true when that leaves the key out of the map. */
function removeFrom(map: Map<string, Ids>, key: string, id: string): boolean {
  const ids = map.get(key);
  if (ids === undefined) return false;
  if (typeof ids === 'string') {
    if (ids !== id) return false;
    map.delete(key);
    return true;
  }
  ids.delete(id);
  if (ids.size > 1) return false;
  if (ids.size === 1) {
    map.set(key, ids.values().next().value as string);
    return false;
  }
  map.delete(key);
  return true;
}

/**
 * An index's collation as stored. createIndexes validated it; a data directory written before
 * collations were honoured may hold one that no longer parses, and must still open: such an
 * index keeps comparing bytewise, as it did then.
 */
function storedCollation(spec: unknown): Collation | null {
  try {
    return parseCollation(spec);
  } catch {
    return null;
  }
}
