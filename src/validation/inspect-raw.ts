import type { FieldError } from '../errors';
import { describeValue } from './describe-value';
import { joinPath } from './field-path';
import { FORBIDDEN_KEYS, INPUT_LIMITS, VALUE_BUDGET } from './limits';

/** Half of a surrogate pair without its other half: JSON escapes allow it, UTF-8 cannot store it. */
const LONE_SURROGATE = /\p{Cs}/u;

/** The walk stops once it has this many errors to report. */
const MAX_ERRORS = 20;

export interface InspectOptions {
  /**
   * Most values (objects, arrays and scalars, the input itself included) the input may hold:
   * `valueBudget(bytes)` of what it came in. No limit when omitted.
   */
  maxValues?: number;
}

/** A value waiting to be looked at; its path is put together only if there is an error to name. */
interface Entry {
  value: unknown;
  parent: Entry | null;
  key: string | number | null;
  depth: number;
}

function pathOf(entry: Entry, rootPath: string): string {
  const keys: Array<string | number> = [];
  for (let at: Entry | null = entry; at !== null && at.key !== null; at = at.parent)
    keys.push(at.key);
  let path = rootPath;
  for (let i = keys.length - 1; i >= 0; i -= 1) path = joinPath(path, keys[i]);
  return path;
}

function fieldName(path: string): string {
  return path === '' ? '(input)' : path;
}

/** Objects whose own keys are walked; Dates, Buffers and the like are leaves. */
function isWalkable(value: object): boolean {
  return !(
    value instanceof Date ||
    value instanceof RegExp ||
    ArrayBuffer.isView(value) ||
    value instanceof Map ||
    value instanceof Set
  );
}

function stringProblem(value: string): string | null {
  if (value.includes('\u0000'))
    return 'expected text without NUL bytes, got a string containing \\u0000';
  if (LONE_SURROGATE.test(value))
    return 'expected well-formed Unicode text, got a lone surrogate (\\ud800–\\udfff)';
  if (value.length > INPUT_LIMITS.maxStringLength)
    return `expected at most ${INPUT_LIMITS.maxStringLength} characters, got ${value.length}`;
  return null;
}

function budgetMessage(maxValues: number): string {
  return (
    `expected at most ${maxValues} values in all, got more ` +
    `(${VALUE_BUDGET.base} plus one per ${VALUE_BUDGET.bytesPerValue} bytes of the input)`
  );
}

/**
 * Walks a raw input (parsed JSON, query object, GraphQL argument) before anything else reads it
 * and lists what no input may contain: `$`-prefixed keys (MongoDB operators), `__proto__` /
 * `constructor` / `prototype` keys, NaN or ±Infinity, strings with NUL bytes, lone surrogates or
 * over the length limit, nesting deeper than the limit, an object with more keys than the limit,
 * and more values in all than `maxValues`. Iterative, so hostile nesting cannot overflow the
 * stack; its work grows with the input's size, and a container too wide or over the budget is
 * refused from its key or item count, before any of its contents is looked at.
 */
export function inspectRaw(
  raw: unknown,
  rootPath = '',
  options: InspectOptions = {},
): FieldError[] {
  const maxValues = options.maxValues ?? Infinity;
  const errors: FieldError[] = [];
  const stack: Entry[] = [{ value: raw, parent: null, key: null, depth: 0 }];
  let values = 1;
  while (stack.length > 0 && errors.length < MAX_ERRORS) {
    const entry = stack.pop()!;
    const { value, depth } = entry;
    if (typeof value === 'number') {
      if (!Number.isFinite(value))
        errors.push({
          field: fieldName(pathOf(entry, rootPath)),
          message: `expected a finite number, got ${describeValue(value)}`,
        });
      continue;
    }
    if (typeof value === 'string') {
      const problem = stringProblem(value);
      if (problem !== null)
        errors.push({ field: fieldName(pathOf(entry, rootPath)), message: problem });
      continue;
    }
    if (value === null || typeof value !== 'object' || !isWalkable(value)) continue;
    if (depth >= INPUT_LIMITS.maxDepth) {
      errors.push({
        field: fieldName(pathOf(entry, rootPath)),
        message: `expected at most ${INPUT_LIMITS.maxDepth} levels of nesting, got deeper input`,
      });
      continue;
    }
    if (Array.isArray(value)) {
      values += value.length;
      if (values > maxValues) {
        errors.push({
          field: fieldName(pathOf(entry, rootPath)),
          message: budgetMessage(maxValues),
        });
        break;
      }
      for (let i = value.length - 1; i >= 0; i -= 1)
        stack.push({ value: value[i], parent: entry, key: i, depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(value);
    if (keys.length > INPUT_LIMITS.maxObjectKeys) {
      errors.push({
        field: fieldName(pathOf(entry, rootPath)),
        message: `expected at most ${INPUT_LIMITS.maxObjectKeys} keys in an object, got ${keys.length}`,
      });
      continue;
    }
    values += keys.length;
    if (values > maxValues) {
      errors.push({ field: fieldName(pathOf(entry, rootPath)), message: budgetMessage(maxValues) });
      break;
    }
    for (let i = keys.length - 1; i >= 0 && errors.length < MAX_ERRORS; i -= 1) {
      const key = keys[i];
      if (key.startsWith('$')) {
        errors.push({
          field: joinPath(pathOf(entry, rootPath), key),
          message: 'keys starting with "$" are not allowed',
        });
      } else if (FORBIDDEN_KEYS.has(key)) {
        errors.push({
          field: joinPath(pathOf(entry, rootPath), key),
          message: `the key "${key}" is not allowed`,
        });
      } else {
        stack.push({
          value: (value as Record<string, unknown>)[key],
          parent: entry,
          key,
          depth: depth + 1,
        });
      }
    }
  }
  // The stack visits in document order; keep that order for the client.
  return errors;
}
