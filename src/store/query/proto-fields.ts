import type { Document } from 'bson';
import { isPlainObject } from '../storage/document-paths';
import { writeField } from './field-access';

/**
 * mingo cannot take a field named `__proto__`, which mongod treats as any other name: it copies a
 * filter by assignment (so such a condition becomes the copy's prototype and vanishes, and the
 * filter matches everything) and refuses the name in paths. Where a filter or pipeline names it,
 * every `__proto__` field name and path part is renamed to this alias, in the filter and in the
 * documents it sees alike. No BSON field name can be the alias (BSON names hold no NUL), and no
 * prototype is ever assigned.
 */
const ALIAS = '\u0000__proto__';
const PROTO = '__proto__';

/** True when a field name or path part at any depth of `value` is `__proto__`. */
export function namesProto(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(namesProto);
  if (!isPlainObject(value)) return false;
  return Object.keys(value).some((key) => key.split('.').includes(PROTO) || namesProto(value[key]));
}

/** A copy of `value` with `__proto__` names and path parts written as the alias. */
export function aliasProto<T>(value: T): T {
  return renamed(value, (key) =>
    key.includes(PROTO)
      ? key
          .split('.')
          .map((part) => (part === PROTO ? ALIAS : part))
          .join('.')
      : key,
  );
}

/** A copy of `value` with the alias turned back into `__proto__` fields. */
export function unaliasProto<T>(value: T): T {
  return renamed(value, (key) => (key === ALIAS ? PROTO : key));
}

function renamed<T>(value: T, rename: (key: string) => string): T {
  if (Array.isArray(value)) return value.map((v) => renamed(v, rename)) as T;
  if (!isPlainObject(value)) return value;
  const copy: Document = {};
  for (const key of Object.keys(value)) writeField(copy, rename(key), renamed(value[key], rename));
  return copy as T;
}
