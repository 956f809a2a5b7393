import type { Document } from 'bson';
import { Context } from 'mingo';
import { canonicalKey } from '../storage/canonical-key';
import { isPlainObject, MISSING, valuesAtPath } from '../storage/document-paths';
import type { Collation } from './collation';
import { mingoOptions, type MingoOptions } from './mingo-options';

/**
 * Collation-aware comparisons for mingo. mingo sorts with a collation but compares strings in
 * filters bytewise. So a filter run under a collation has each comparison whose operand holds a
 * string rewritten to one of these operators, which compare strings with the collation's
 * Intl.Collator; they join the store's operators (mingo-options.ts) for that query only.
 */
const REWRITTEN: Record<string, string> = {
  $eq: '$__collatedEq',
  $ne: '$__collatedNe',
  $in: '$__collatedIn',
  $nin: '$__collatedNin',
  $gt: '$__collatedGt',
  $gte: '$__collatedGte',
  $lt: '$__collatedLt',
  $lte: '$__collatedLte',
};
const RANGE = new Set(['$gt', '$gte', '$lt', '$lte']);

type QueryOps = NonNullable<NonNullable<Parameters<typeof Context.init>[0]>['query']>;

/** mingo options for a filter, sort or pipeline run under `collation` (null: binary). */
export function collatedMingoOptions(
  collation: Collation | null,
  resolver?: (name: string) => Document[],
): MingoOptions {
  const base = mingoOptions(resolver);
  if (!collation) return base;
  let context = contexts.get(collation);
  if (!context) {
    context = Context.from(
      base.context!,
      Context.init({ query: collatedOperators(collation) as unknown as QueryOps }),
    );
    contexts.set(collation, context);
  }
  return { ...base, collation: collation.mingo, context };
}

// One context per collation (parseCollation gives the same object for the same collation).
const contexts = new WeakMap<Collation, Context>();

/** The filter with its string comparisons turned into the collated operators. */
export function collatedFilter(filter: Document, collation: Collation | null): Document {
  if (!collation) return filter;
  // Built with fromEntries: a field named "__proto__" stays a field.
  return Object.fromEntries(
    Object.entries(filter).map(([field, cond]) => {
      if ((field === '$and' || field === '$or' || field === '$nor') && Array.isArray(cond)) {
        return [
          field,
          cond.map((sub) => (isPlainObject(sub) ? collatedFilter(sub, collation) : sub)),
        ];
      }
      // $expr, $jsonSchema...: compared without the collation (DIFFERENCES.md).
      return [field, field.startsWith('$') ? cond : collatedCondition(cond, collation)];
    }),
  );
}

function collatedCondition(cond: unknown, collation: Collation): unknown {
  if (!isPlainObject(cond) || !Object.keys(cond).some((k) => k.startsWith('$'))) {
    return holdsString(cond) && !Array.isArray(cond) ? { [REWRITTEN.$eq]: cond } : cond;
  }
  return Object.fromEntries(
    Object.entries(cond).map(([op, operand]) => {
      if (op === '$not' && isPlainObject(operand))
        return [op, collatedCondition(operand, collation)];
      if (op === '$elemMatch' && isPlainObject(operand))
        return [op, collatedElemMatch(operand, collation)];
      return rewritable(op, operand) ? [REWRITTEN[op], operand] : [op, operand];
    }),
  );
}

function collatedElemMatch(criteria: Document, collation: Collation): Document {
  const operatorsOnly = Object.keys(criteria).every(
    (k) => k.startsWith('$') && k !== '$and' && k !== '$or' && k !== '$nor',
  );
  return operatorsOnly
    ? (collatedCondition(criteria, collation) as Document)
    : collatedFilter(criteria, collation);
}

function rewritable(op: string, operand: unknown): boolean {
  if (!(op in REWRITTEN)) return false;
  if (RANGE.has(op)) return typeof operand === 'string';
  if (op === '$in' || op === '$nin')
    return Array.isArray(operand) && operand.some((v) => holdsString(v) && !Array.isArray(v));
  return holdsString(operand) && !Array.isArray(operand);
}

/** True when a value is a string or holds one at any depth (so a collation may change how it compares). */
export function holdsString(v: unknown): boolean {
  if (typeof v === 'string') return true;
  if (Array.isArray(v)) return v.some(holdsString);
  return isPlainObject(v) && Object.values(v).some(holdsString);
}

type Test = (doc: Document) => boolean;

function collatedOperators(
  collation: Collation,
): Record<string, (selector: string, operand: unknown) => Test> {
  const equal = (a: unknown, b: unknown): boolean => collatedEqual(a, b, collation);
  // Each value the path reaches (array elements included), MISSING when it reaches none.
  const anyValue =
    (selector: string, test: (v: unknown) => boolean): Test =>
    (doc) =>
      valuesAtPath(doc, selector).some(test);
  const inList =
    (list: unknown[]) =>
    (v: unknown): boolean =>
      list.some((item) => {
        if (item instanceof RegExp) return typeof v === 'string' && item.test(v);
        if (item === null) return v === null || v === MISSING;
        return equal(v, item);
      });
  const range =
    (accept: (order: number) => boolean) =>
    (selector: string, operand: unknown): Test =>
      anyValue(
        selector,
        (v) => typeof v === 'string' && accept(collation.compare(v, operand as string)),
      );
  return {
    $__collatedEq: (selector, operand) => anyValue(selector, (v) => equal(v, operand)),
    $__collatedNe: (selector, operand) => {
      const eq = anyValue(selector, (v) => equal(v, operand));
      return (doc) => !eq(doc);
    },
    $__collatedIn: (selector, operand) => anyValue(selector, inList(operand as unknown[])),
    $__collatedNin: (selector, operand) => {
      const found = anyValue(selector, inList(operand as unknown[]));
      return (doc) => !found(doc);
    },
    $__collatedGt: range((o) => o > 0),
    $__collatedGte: range((o) => o >= 0),
    $__collatedLt: range((o) => o < 0),
    $__collatedLte: range((o) => o <= 0),
  };
}

/** mongod's equality with strings (at any depth) compared by the collation. */
export function collatedEqual(a: unknown, b: unknown, collation: Collation): boolean {
  if (typeof a === 'string' && typeof b === 'string') return collation.compare(a, b) === 0;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => collatedEqual(v, b[i], collation));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return (
      ka.length === kb.length &&
      ka.every((k, i) => k === kb[i] && collatedEqual(a[k], b[k], collation))
    );
  }
  if (a === MISSING || b === MISSING) return false;
  return canonicalKey(a) === canonicalKey(b);
}
