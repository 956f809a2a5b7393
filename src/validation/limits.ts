/** Input limits enforced on every REST and GraphQL input before any class-based validation. */
export const INPUT_LIMITS = {
  /** Longest string accepted anywhere in an input (CRM descriptions stay well below it). */
  maxStringLength: 10_000,
  /** Deepest nesting of objects/arrays; deeper input is rejected rather than walked recursively. */
  maxDepth: 32,
} as const;

/** Keys that would reach Object.prototype or a constructor if merged into an object. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set([
  '__proto__',
  'constructor',
  'prototype',
]);
