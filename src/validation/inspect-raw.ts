import type { FieldError } from '../errors';
import { describeValue } from './describe-value';
import { joinPath } from './field-path';
import { FORBIDDEN_KEYS, INPUT_LIMITS } from './limits';

/** Half of a surrogate pair without its other half: JSON escapes allow it, UTF-8 cannot store it. */
const LONE_SURROGATE = /\p{Cs}/u;

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

/**
 * Walks a raw input (parsed JSON, query object, GraphQL argument) before anything else reads it
 * and lists what no input may contain: `$`-prefixed keys (MongoDB operators), `__proto__` /
 * `constructor` / `prototype` keys, NaN or ±Infinity, strings with NUL bytes, lone surrogates or
 * over the length limit, and nesting deeper than the limit. Iterative, so hostile nesting cannot overflow the stack.
 */
export function inspectRaw(raw: unknown, rootPath = ''): FieldError[] {
  const errors: FieldError[] = [];
  const stack: Array<{ value: unknown; path: string; depth: number }> = [
    { value: raw, path: rootPath, depth: 0 },
  ];
  while (stack.length > 0 && errors.length < 20) {
    const { value, path, depth } = stack.pop()!;
    const field = path === '' ? '(input)' : path;
    if (typeof value === 'number') {
      if (!Number.isFinite(value))
        errors.push({ field, message: `expected a finite number, got ${describeValue(value)}` });
      continue;
    }
    if (typeof value === 'string') {
      if (value.includes('\u0000'))
        errors.push({
          field,
          message: 'expected text without NUL bytes, got a string containing \\u0000',
        });
      else if (LONE_SURROGATE.test(value))
        errors.push({
          field,
          message: 'expected well-formed Unicode text, got a lone surrogate (\\ud800–\\udfff)',
        });
      else if (value.length > INPUT_LIMITS.maxStringLength) {
        errors.push({
          field,
          message: `expected at most ${INPUT_LIMITS.maxStringLength} characters, got ${value.length}`,
        });
      }
      continue;
    }
    if (value === null || typeof value !== 'object' || !isWalkable(value)) continue;
    if (depth >= INPUT_LIMITS.maxDepth) {
      errors.push({
        field,
        message: `expected at most ${INPUT_LIMITS.maxDepth} levels of nesting, got deeper input`,
      });
      continue;
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i -= 1)
        stack.push({ value: value[i], path: joinPath(path, i), depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i -= 1) {
      const key = keys[i];
      const keyPath = joinPath(path, key);
      if (key.startsWith('$')) {
        errors.push({ field: keyPath, message: 'keys starting with "$" are not allowed' });
      } else if (FORBIDDEN_KEYS.has(key)) {
        errors.push({ field: keyPath, message: `the key "${key}" is not allowed` });
      } else {
        stack.push({
          value: (value as Record<string, unknown>)[key],
          path: keyPath,
          depth: depth + 1,
        });
      }
    }
  }
  // The stack visits in document order; keep that order for the client.
  return errors;
}
