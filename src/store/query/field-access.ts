import type { Document } from 'bson';
import { StoreError } from '../errors';
import { isPlainObject } from '../storage/document-paths';
import { formatValue } from '../storage/format-key';

/** A field's own value, never one inherited from Object.prototype (`constructor`, `__proto__`). */
export function ownValue(doc: Document, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(doc, key) ? doc[key] : undefined;
}

/**
 * Sets a field as an own data property, so that a field named `__proto__` is stored as a field
 * (as BSON deserialization does) rather than replacing the object's prototype. An array index
 * past the end pads the array with nulls, as mongod does.
 */
export function writeField(container: Document | unknown[], key: string, value: unknown): void {
  if (Array.isArray(container)) {
    const index = Number(key);
    while (container.length < index) container.push(null);
    container[index] = value;
    return;
  }
  Object.defineProperty(container, key, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}

/** Removes a field; an array element becomes null, keeping the positions of the others. */
export function removeField(container: Document | unknown[], key: string): void {
  if (Array.isArray(container)) container[Number(key)] = null;
  else delete container[key];
}

export interface FieldSlot {
  /** The document or array holding the path's last part. */
  container: Document | unknown[];
  key: string;
  /** The current value; undefined when the field is absent. */
  value: unknown;
}

const isIndex = (part: string): boolean => /^\d+$/.test(part);

/**
 * How `locate` treats a path that is not all there: `read` finds nothing; `check` raises
 * mongod's PathNotViable where the path cannot exist (a field inside a scalar, or a named field
 * inside an array) and otherwise finds nothing; `create` raises it too, and creates missing
 * intermediate fields as documents.
 */
export type LocateMode = 'read' | 'check' | 'create';

/** Finds where a concrete (positional-free) path ends in `doc`; null where it is not there. */
export function locate(doc: Document, path: string, mode: LocateMode): FieldSlot | null {
  const parts = path.split('.');
  let container: Document | unknown[] = doc;
  let name = '';
  for (let i = 0; ; i++) {
    const part = parts[i];
    if (Array.isArray(container) && !isIndex(part)) {
      if (mode === 'read') return null;
      throw notViable(part, name, container);
    }
    const value: unknown = Array.isArray(container)
      ? container[Number(part)]
      : ownValue(container, part);
    if (i === parts.length - 1) return { container, key: part, value };
    if (value === undefined) {
      if (mode !== 'create') return null;
      const made: Document = {};
      writeField(container, part, made);
      container = made;
    } else if (isPlainObject(value) || Array.isArray(value)) {
      container = value;
    } else {
      if (mode === 'read') return null;
      throw notViable(parts[i + 1], part, value);
    }
    name = part;
  }
}

function notViable(field: string, name: string, value: unknown): StoreError {
  return new StoreError(
    'PathNotViable',
    `Cannot create field '${field}' in element {${name}: ${formatValue(value)}}`,
  );
}
