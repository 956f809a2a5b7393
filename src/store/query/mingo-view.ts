import { canonicalKey } from '../storage/canonical-key';
import { isPlainObject } from '../storage/document-paths';

/**
 * What mingo sees of stored values. The store keeps every numeric BSON type (see
 * storage/stored-values.ts), but mingo compares only JS numbers with each other: a `Double` and a
 * `Long` would be other types to it. Its view of a value has those as numbers (a Long beyond 2^53
 * stays a Long: no number holds it exactly). A value without them is its own view, so for most
 * documents this costs one look-up once the view is known: it is kept on the object asked about
 * (stored documents never change in place), and each copied object remembers the stored one it
 * stands for.
 */
const VIEW = Symbol('mingo view');
const originals = new WeakMap<object, object>();

export function viewOf<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  // Kept on the object itself under a hidden key (not enumerable, so no copy, comparison or
  // serialisation sees it): a WeakMap entry per stored document weighs on every garbage collection.
  const known = (value as { [VIEW]?: T })[VIEW];
  if (known !== undefined) return known;
  const view = computeView(value);
  if (Object.isExtensible(value)) Object.defineProperty(value, VIEW, { value: view });
  return view as T;
}

/** The stored object a view object stands for (itself when it is not a copy). */
export function originalOf<T>(view: T): T {
  return (
    (typeof view === 'object' && view !== null
      ? (originals.get(view) as T | undefined)
      : undefined) ?? view
  );
}

/** The view of a part of an object: computed with the object's, not kept on its own. */
const partView = (value: unknown): unknown =>
  typeof value === 'object' && value !== null ? computeView(value) : value;

function computeView(value: object): unknown {
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v = partView(value[i]);
      if (v !== value[i] && !copy) copy = value.slice(0, i);
      copy?.push(v);
    }
    return copy ? remember(copy, value) : value;
  }
  if (isPlainObject(value)) {
    let copy: Record<string, unknown> | undefined;
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const v = partView(value[key]);
      if (v !== value[key] && !copy) {
        copy = {};
        for (const earlier of keys.slice(0, i)) setOwn(copy, earlier, value[earlier]);
      }
      if (copy) setOwn(copy, key, v);
    }
    return copy ? remember(copy, value) : value;
  }
  const n = typedNumber(value);
  return n === undefined ? value : n;
}

function remember<T extends object>(copy: T, original: object): T {
  originals.set(copy, original);
  return copy;
}

/** The number a `Double`, `Int32` or JS-safe `Long` holds; undefined for anything else. */
function typedNumber(value: object): number | undefined {
  const bson = value as { _bsontype?: string; value?: number; toNumber?(): number };
  switch (bson._bsontype) {
    case 'Double':
    case 'Int32':
      return bson.value;
    case 'Long': {
      const n = bson.toNumber!();
      return Number.isSafeInteger(n) ? n : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * `result` (made by mingo from the view of `original`) with the stored numeric types put back
 * where it still holds, at the same place, the value `original` holds there. Copies what it
 * changes: parts of `result` may be shared with the view.
 */
export function retype<T>(result: T, original: unknown): T {
  if (result === original || typeof original !== 'object' || original === null) return result;
  if (typeof result === 'number') {
    const n = typedNumber(original);
    return n !== undefined && Object.is(n, result) ? (original as T) : result;
  }
  if (Array.isArray(result) && Array.isArray(original)) {
    // An array of another length was cut or filtered (`arr.$`, `$slice`, `$filter`): its elements
    // are found by value.
    if (result.length !== original.length) return retypeElements(result, original) as T;
    let copy: unknown[] | undefined;
    for (let i = 0; i < result.length; i++) {
      const v = i < original.length ? retype(result[i], original[i]) : result[i];
      if (v !== result[i] && !copy) copy = result.slice(0, i);
      copy?.push(v);
    }
    return (copy ?? result) as T;
  }
  if (isPlainObject(result) && isPlainObject(original)) {
    let copy: Record<string, unknown> | undefined;
    const keys = Object.keys(result);
    for (const [i, key] of keys.entries()) {
      const v = Object.hasOwn(original, key) ? retype(result[key], original[key]) : result[key];
      if (v !== result[key] && !copy) {
        copy = {};
        for (const earlier of keys.slice(0, i)) setOwn(copy, earlier, result[earlier]);
      }
      if (copy) setOwn(copy, key, v);
    }
    return (copy ?? result) as T;
  }
  return result;
}

/**
 * `result`, an array mingo made from views of the values in `sources` (in any order, some left
 * out), with each element retyped after the first source of the same value not used yet.
 */
export function retypeElements(result: unknown[], sources: unknown[]): unknown[] {
  if (sources.every((s) => typeof s !== 'object' || s === null || viewOf(s) === s)) return result;
  const unused = new Map<string, unknown[]>();
  for (const s of sources) {
    const key = canonicalKey(s);
    const queue = unused.get(key);
    if (queue) queue.push(s);
    else unused.set(key, [s]);
  }
  let copy: unknown[] | undefined;
  for (let i = 0; i < result.length; i++) {
    const source = unused.get(canonicalKey(result[i]))?.shift();
    const v = source === undefined ? result[i] : retype(result[i], source);
    if (v !== result[i] && !copy) copy = result.slice(0, i);
    copy?.push(v);
  }
  return copy ?? result;
}

function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  // A plain assignment to `__proto__` would set the prototype instead of a field.
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}
