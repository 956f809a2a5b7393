import type { Document } from 'bson';
import { StoreError } from '../errors';
import { cloneDocument } from '../storage/document-paths';
import { sameBson } from '../storage/stored-values';
import type { Collation } from './collation';
import { locate, ownValue, writeField } from './field-access';
import { update as mingoUpdate } from './mingo';
import { mingoOptions } from './mingo-options';
import { viewOf } from './mingo-view';
import { concretePaths, type PositionalContext } from './positional-paths';
import {
  checkTarget,
  CREATING_OPERATORS,
  pullFromField,
  renameField,
  setField,
  unsetField,
} from './update-fields';
import { arithmeticResult, storedResult } from './update-types';

/** One operator's effect on one concrete path: `arg` is the operator's argument for it. */
export interface FieldWrite {
  op: string;
  path: string;
  arg: unknown;
}

/**
 * The writes of an operator update, positional paths resolved against `doc` as it is before any
 * of them applies. Two writes reaching the same element, or one inside the other, conflict.
 * When an existing document is updated (not an upsert's new one), a `$`-prefixed top-level field
 * may not be created or replaced (mongod's storage rule since 5.0; nested ones are fine).
 */
export function concreteWrites(
  doc: Document,
  ops: Document,
  ctx: PositionalContext & { inserting?: boolean },
): FieldWrite[] {
  const writes: FieldWrite[] = [];
  for (const op of Object.keys(ops)) {
    for (const [path, arg] of Object.entries(ops[op] as Document)) {
      for (const concrete of concretePaths(doc, path, ctx))
        writes.push({ op, path: concrete, arg });
    }
  }
  // Sorted part by part, a path is directly followed by any path that extends it.
  const touched = writes
    .flatMap((w) => (w.op === '$rename' ? [w.path, String(w.arg)] : [w.path]))
    .map((path) => path.split('.'))
    .sort(comparePaths);
  for (let i = 1; i < touched.length; i++) {
    if (touched[i - 1].every((part, j) => touched[i][j] === part)) {
      throw new StoreError(
        'ConflictingUpdateOperators',
        `Update created a conflict at '${touched[i].join('.')}'`,
      );
    }
  }
  if (!ctx.inserting) {
    for (const w of writes) {
      if (CREATING_OPERATORS.has(w.op)) refuseTopLevelDollar(doc, w.path);
      else if (w.op === '$rename') refuseTopLevelDollar(doc, String(w.arg));
    }
  }
  return writes;
}

function refuseTopLevelDollar(doc: Document, path: string): void {
  const parts = path.split('.');
  const head = parts[0];
  if (!head.startsWith('$') || (parts.length > 1 && ownValue(doc, head) !== undefined)) return;
  throw new StoreError(
    'DollarPrefixedFieldName',
    `The dollar ($) prefixed field '${head}' in '${head}' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.`,
  );
}

/** Operators the store applies itself (update-fields.ts); the others' values are computed first. */
const STORE_OPERATORS = new Set(['$set', '$unset', '$rename', '$pull']);

/**
 * Applies the writes to `doc` in place in mongod's order: by path, field name by field name
 * (array indexes by number), whatever the operators, so the fields an update creates are added
 * in that order. A `$rename` takes its place at its target. Returns whether anything changed.
 */
export function applyWrites(
  doc: Document,
  writes: FieldWrite[],
  collation: Collation | null,
): boolean {
  const computed = computedValues(
    doc,
    writes.filter((w) => !STORE_OPERATORS.has(w.op)),
  );
  const placed = (w: FieldWrite): string[] =>
    (w.op === '$rename' ? String(w.arg) : w.path).split('.');
  const ordered = writes
    .map((w) => ({ w, parts: placed(w) }))
    .sort((a, b) => comparePaths(a.parts, b.parts));
  let changed = false;
  for (const { w } of ordered) {
    switch (w.op) {
      case '$set':
        changed = setField(doc, w.path, w.arg) || changed;
        break;
      case '$unset':
        changed = unsetField(doc, w.path) || changed;
        break;
      case '$rename':
        changed = renameField(doc, w.path, String(w.arg)) || changed;
        break;
      case '$pull':
        changed = pullFromField(doc, w.path, w.arg, collation) || changed;
        break;
      default: {
        const result = computed.get(w);
        if (!result) break;
        const slot = locate(doc, w.path, 'create')!;
        writeField(slot.container, slot.key, result.value);
        changed = result.changed || changed;
      }
    }
  }
  return changed;
}

/**
 * The new values of the computed writes, from the values before the update (no two writes touch
 * the same field). `$inc` and `$mul` are the store's own arithmetic, typed as mongod types it
 * (update-types.ts); the other operators' values come from one mingo call. mingo works on a holder
 * document of generated field names and never sees the real paths, so names it refuses or
 * misreads (`$`-prefixed, `__proto__`, Object.prototype members such as `constructor`) behave as
 * any other; it computes on views (mingo-view.ts) of the values and arguments, and each result
 * then gets the BSON type mongod gives it. A write without an entry leaves its field as it is.
 */
function computedValues(
  doc: Document,
  writes: FieldWrite[],
): Map<FieldWrite, { value: unknown; changed: boolean }> {
  const out = new Map<FieldWrite, { value: unknown; changed: boolean }>();
  const holder: Document = {};
  const modifier: Record<string, Document> = {};
  const before = new Map<FieldWrite, unknown>();
  writes.forEach((w, i) => {
    const target = checkTarget(doc, w.op, w.path);
    if (!target) return;
    if (w.op === '$inc' || w.op === '$mul') {
      const value = arithmeticResult(w.op, target.value, w.arg);
      out.set(w, { value, changed: target.value === undefined || !sameBson(target.value, value) });
      return;
    }
    // A copy: mingo edits arrays in place, and `before` must keep the value as it was.
    if (target.value !== undefined) holder[`f${i}`] = cloneDocument(viewOf(target.value));
    (modifier[w.op] ??= {})[`f${i}`] = viewOf(w.arg);
    before.set(w, target.value);
  });
  if (before.size === 0) return out;
  mingoUpdate(holder, modifier, undefined, undefined, {
    cloneMode: 'deep',
    queryOptions: mingoOptions(),
  });
  writes.forEach((w, i) => {
    const computed = holder[`f${i}`];
    if (!before.has(w) || computed === undefined) return;
    const previous = before.get(w);
    const value = storedResult(w.op, previous, w.arg, computed);
    out.set(w, { value, changed: previous === undefined || !sameBson(previous, value) });
  });
  return out;
}

const INDEX = /^\d+$/;

function comparePaths(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] === b[i]) continue;
    if (INDEX.test(a[i]) && INDEX.test(b[i])) return Number(a[i]) - Number(b[i]);
    return a[i] < b[i] ? -1 : 1;
  }
  return a.length - b.length;
}
