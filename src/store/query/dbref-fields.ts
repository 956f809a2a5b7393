import type { Document } from 'bson';
import { $eq } from 'mingo/operators/query';
import type { Options } from 'mingo/types/types';
import { StoreError } from '../errors';
import { isPlainObject } from '../storage/document-paths';
import { writeField } from './field-access';

const DBREF_FIELDS = new Set(['$ref', '$id', '$db']);
const LOGICAL = new Set(['$and', '$or', '$nor']);

/**
 * Marks a condition on a DBRef field. mingo refuses `$`-prefixed field names in a filter; mongod
 * reads `$ref`, `$id` and `$db` as the names of a DBRef's fields. The filter names them behind a
 * NUL (which no BSON field name contains) with this operator, which matches on the real field.
 */
export const DBREF_FIELD_OPERATOR = '$dbRefField';
const MARK = '\u0000';

export function dbRefFieldOperator(
  selector: string,
  value: unknown,
  options: Options,
): (obj: Document) => boolean {
  if (!selector.startsWith(MARK))
    throw new StoreError('BadValue', `unknown operator: ${DBREF_FIELD_OPERATOR}`);
  return $eq(selector.slice(MARK.length), value, options);
}

/**
 * The filter with mongod's DBRef readings made explicit for mingo: `$ref`/`$id`/`$db` as field
 * names (at the top, in `$and`/`$or`/`$nor`, in a document `$elemMatch`), a value that is a DBRef
 * (`{$ref, $id}`) as an equality, and a value whose first field is not an operator as an equality
 * even if a later one starts with `$`. Unchanged parts are shared, not copied.
 */
export function withDbRefFields(filter: Document): Document {
  let out: Document | undefined;
  const keys = Object.keys(filter);
  for (const [i, key] of keys.entries()) {
    const cond = filter[key];
    let next: [string, unknown];
    if (DBREF_FIELDS.has(key)) next = [MARK + key, { [DBREF_FIELD_OPERATOR]: cond }];
    else if (LOGICAL.has(key) && Array.isArray(cond))
      next = [key, mapShared(cond, (c) => (isPlainObject(c) ? withDbRefFields(c) : c))];
    else if (key.startsWith('$')) next = [key, cond];
    else next = [key, fieldCondition(cond)];
    if (!out && (next[0] !== key || next[1] !== cond)) {
      out = {};
      for (const earlier of keys.slice(0, i)) writeField(out, earlier, filter[earlier]);
    }
    // Written as own fields: a condition on a field named `__proto__` stays one.
    if (out) writeField(out, next[0], next[1]);
  }
  return out ?? filter;
}

function fieldCondition(cond: unknown): unknown {
  if (!isPlainObject(cond)) return cond;
  const keys = Object.keys(cond);
  if (keys.length === 0) return cond;
  if (!keys[0].startsWith('$')) return keys.some((k) => k.startsWith('$')) ? { $eq: cond } : cond;
  if (keys.includes('$ref') && keys.includes('$id')) return { $eq: cond };
  let changed = false;
  const out: Document = {};
  for (const op of keys) {
    let arg = cond[op];
    if (op === '$elemMatch' && isPlainObject(arg) && isDocumentElemMatch(arg))
      arg = withDbRefFields(arg);
    else if (op === '$not') arg = fieldCondition(arg);
    changed ||= arg !== cond[op];
    out[op] = arg;
  }
  return changed ? out : cond;
}

/** mongod's test for an `$elemMatch` on documents (rather than on values): see isExpressionDocument. */
function isDocumentElemMatch(arg: Document): boolean {
  const keys = Object.keys(arg);
  return (
    keys.length === 0 ||
    !keys[0].startsWith('$') ||
    keys.some((k) => DBREF_FIELDS.has(k)) ||
    LOGICAL.has(keys[0]) ||
    keys[0] === '$expr' ||
    keys[0] === '$where'
  );
}

function mapShared<T>(items: T[], fn: (item: T) => T): T[] {
  const mapped = items.map(fn);
  return mapped.every((m, i) => m === items[i]) ? items : mapped;
}
