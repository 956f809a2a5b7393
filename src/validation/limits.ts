/** Input limits enforced on every REST and GraphQL input before any class-based validation. */
export const INPUT_LIMITS = {
  /** Longest string accepted anywhere in an input (CRM descriptions stay well below it). */
  maxStringLength: 10_000,
  /** Deepest nesting of objects/arrays; deeper input is rejected rather than walked recursively. */
  maxDepth: 32,
  /**
   * Most keys in any one object. The widest object a real request carries is a HubSpot record's
   * `properties` (the import): every default deal property and every custom one a portal may
   * define stay below it. class-transformer's work on an object grows with the square of its keys,
   * so this is what keeps the transform of any object short.
   */
  maxObjectKeys: 2_000,
  /**
   * Largest body of a REST route whose input is small (every route but the import): the limits
   * above and each field's own keep a real one to a few kilobytes, so a larger body is refused
   * (413) before it is read, and costs neither reading nor parsing. The import is bounded by
   * BODY_LIMIT alone.
   */
  maxSmallBodyBytes: 256 * 1024,
} as const;

/**
 * The number of values (objects, arrays, strings, numbers, booleans, nulls) an input may hold:
 * `base` plus one per `bytesPerValue` bytes of what it came in. HubSpot exports run at 16 to 36
 * bytes a value, so a real import stays well inside; `[0,0,0,...]` at 2 bytes a value does not.
 */
export const VALUE_BUDGET = { base: 1_024, bytesPerValue: 8 } as const;

/** How many values an input that came in `bytes` bytes may hold (VALUE_BUDGET). */
export function valueBudget(bytes: number): number {
  return VALUE_BUDGET.base + Math.floor(Math.max(0, bytes) / VALUE_BUDGET.bytesPerValue);
}

/** Keys that would reach Object.prototype or a constructor if merged into an object. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set([
  '__proto__',
  'constructor',
  'prototype',
]);
