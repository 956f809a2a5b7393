import type { Document } from 'bson';

/** Marks "no value at this path" (distinct from an explicit null) in index key extraction. */
export const MISSING = Symbol('missing');

const isPlainObject = (v: unknown): v is Document =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  !(v instanceof Date) &&
  (v as { _bsontype?: string })._bsontype === undefined &&
  !(v instanceof RegExp);

/**
 * The values a dotted path reaches in a document, the way mongod's index key generation sees
 * them: arrays met on the way fan out over their elements, a numeric path part also indexes the
 * array, and an array at the end contributes each element (an empty array contributes itself).
 */
export function valuesAtPath(doc: Document, path: string): unknown[] {
  const out: unknown[] = [];
  collect(doc, path.split('.'), 0, out);
  return out.length > 0 ? out : [MISSING];
}

function collect(value: unknown, parts: string[], i: number, out: unknown[]): void {
  if (i === parts.length) {
    if (Array.isArray(value)) {
      if (value.length === 0) out.push(value);
      else for (const el of value) out.push(el);
    } else {
      out.push(value);
    }
    return;
  }
  const part = parts[i];
  if (Array.isArray(value)) {
    if (/^\d+$/.test(part)) {
      const idx = Number(part);
      if (idx < value.length) collect(value[idx], parts, i + 1, out);
    }
    for (const el of value) if (isPlainObject(el)) collect(el, parts, i, out);
    return;
  }
  if (isPlainObject(value) && part in value) {
    collect(value[part], parts, i + 1, out);
  }
}

/** The value at a dotted path without array fan-out (undefined when absent). */
export function getPath(doc: Document, path: string): unknown {
  let cur: unknown = doc;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Document)[part];
  }
  return cur;
}

/**
 * Copies plain objects and arrays so an update can work on its own version of a stored
 * document. BSON value instances (ObjectId, Binary, Decimal128...) are immutable and shared.
 */
export function cloneDocument<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneDocument) as T;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (isPlainObject(value)) {
    const copy: Document = {};
    for (const key of Object.keys(value)) {
      // Assigning `__proto__` would set the copy's prototype: that field is defined instead.
      if (key === '__proto__') {
        Object.defineProperty(copy, key, {
          value: cloneDocument(value[key]),
          writable: true,
          enumerable: true,
          configurable: true,
        });
      } else {
        copy[key] = cloneDocument(value[key]);
      }
    }
    return copy as T;
  }
  return value;
}

export { isPlainObject };
