import type { Document } from 'bson';
import { update as mingoUpdate } from 'mingo';
import { StoreError } from '../errors';
import { ownValue, writeField, type FieldSlot } from './field-access';
import { mingoOptions } from './mingo-options';
import { concretePaths, type PositionalContext } from './positional-paths';
import { checkTarget, CREATING_OPERATORS, pullFromField, renameField, setField, unsetField } from './update-fields';

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
export function concreteWrites(doc: Document, ops: Document, ctx: PositionalContext & { inserting?: boolean }): FieldWrite[] {
  const writes: FieldWrite[] = [];
  for (const op of Object.keys(ops)) {
    for (const [path, arg] of Object.entries(ops[op] as Document)) {
      for (const concrete of concretePaths(doc, path, ctx)) writes.push({ op, path: concrete, arg });
    }
  }
  // Sorted part by part, a path is directly followed by any path that extends it.
  const touched = writes
    .flatMap((w) => (w.op === '$rename' ? [w.path, String(w.arg)] : [w.path]))
    .map((path) => path.split('.'))
    .sort(comparePaths);
  for (let i = 1; i < touched.length; i++) {
    if (touched[i - 1].every((part, j) => touched[i][j] === part)) {
      throw new StoreError('ConflictingUpdateOperators', `Update created a conflict at '${touched[i].join('.')}'`);
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

/**
 * Applies the writes to `doc` in place in mongod's order: by path, field name by field name
 * (array indexes by number), whatever the operators, so the fields an update creates are added
 * in that order. A `$rename` takes its place at its target. `$set`, `$unset`, `$rename` and
 * `$pull` are the store's own (see update-fields.ts); the others' new values are computed by
 * mingo, after the store has raised the errors mongod raises for them.
 */
export function applyWrites(doc: Document, writes: FieldWrite[]): void {
  const placed = (w: FieldWrite): string[] => (w.op === '$rename' ? String(w.arg) : w.path).split('.');
  const ordered = writes.map((w) => ({ w, parts: placed(w) })).sort((a, b) => comparePaths(a.parts, b.parts));
  for (const { w } of ordered) {
    switch (w.op) {
      case '$set':
        setField(doc, w.path, w.arg);
        break;
      case '$unset':
        unsetField(doc, w.path);
        break;
      case '$rename':
        renameField(doc, w.path, String(w.arg));
        break;
      case '$pull':
        pullFromField(doc, w.path, w.arg);
        break;
      default: {
        const slot = checkTarget(doc, w.op, w.path);
        if (slot) computeWithMingo(slot, w.op, w.arg);
      }
    }
  }
}

/**
 * mingo computes the new value on a one-field holder and the store writes it back: mingo then
 * never sees the real path, so field names it refuses or misreads (`$`-prefixed, `__proto__`,
 * names of Object.prototype members such as `constructor`) behave as any other name.
 */
function computeWithMingo(slot: FieldSlot, op: string, arg: unknown): void {
  const holder: Document = slot.value === undefined ? {} : { v: slot.value };
  mingoUpdate(holder, { [op]: { v: arg } }, undefined, undefined, { cloneMode: 'deep', queryOptions: mingoOptions() });
  if (holder.v !== undefined) writeField(slot.container, slot.key, holder.v);
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
