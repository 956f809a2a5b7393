import { Double, Long, type Document } from 'bson';
import { StoreError } from '../errors';
import { canonicalKey } from '../storage/canonical-key';
import { getPath, isPlainObject } from '../storage/document-paths';
import { isInt32 } from '../storage/stored-values';
import { viewOf } from './mingo-view';

/**
 * Operators whose arguments mingo compares or computes with: it gets their views (plain
 * numbers). The others (`$set`, `$push`, ...) store their arguments, which keep their types.
 */
const COMPARING_OPERATORS = new Set(['$inc', '$mul', '$min', '$max', '$pull', '$pullAll', '$bit']);

export function comparableOperands(ops: Document): Document {
  const out: Document = {};
  for (const [op, args] of Object.entries(ops)) out[op] = COMPARING_OPERATORS.has(op) ? viewOf(args) : args;
  return out;
}

type NumericKind = 'int' | 'long' | 'double' | 'decimal';

function numericKind(v: unknown): NumericKind | undefined {
  if (typeof v === 'number') return isInt32(v) ? 'int' : 'double';
  switch ((v as { _bsontype?: string } | null)?._bsontype) {
    case 'Int32':
      return 'int';
    case 'Long':
      return 'long';
    case 'Double':
      return 'double';
    case 'Decimal128':
      return 'decimal';
    default:
      return undefined;
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * Gives each `$inc`/`$mul` result on a plain (non-positional) path the BSON type mongod gives it
 * (mingo computed it on JS numbers): int32 stays int32 unless the result overflows, then it is a
 * long; a long stays a long (computed exactly); anything with a double is a double. A missing
 * field takes the operand's type (`$mul` sets it to zero of that type); an int64 overflow is
 * refused. Decimal128 arithmetic is left as mingo did it.
 */
export function typeArithmeticResults(next: Document, before: Document, ops: Document): void {
  for (const [op, path, operand] of plainPathArguments(ops, ['$inc', '$mul'])) {
    const result = typedResult(op as '$inc' | '$mul', getPath(before, path), operand);
    if (result !== undefined) setExistingPath(next, path, result);
  }
  // `$min`/`$max` store their operand when it wins: as given, not as mingo's number.
  for (const [, path, operand] of plainPathArguments(ops, ['$min', '$max'])) {
    const now = getPath(next, path);
    if (now !== undefined && canonicalKey(now) !== canonicalKey(getPath(before, path)) && canonicalKey(now) === canonicalKey(operand)) {
      setExistingPath(next, path, operand);
    }
  }
}

/** [operator, path, operand] of the given operators' arguments on paths without a positional part. */
function plainPathArguments(ops: Document, operators: string[]): Array<[string, string, unknown]> {
  const out: Array<[string, string, unknown]> = [];
  for (const op of operators) {
    const args = ops[op];
    if (!isPlainObject(args)) continue;
    for (const [path, operand] of Object.entries(args)) {
      if (!path.split('.').some((part) => part.startsWith('$'))) out.push([op, path, operand]);
    }
  }
  return out;
}

function typedResult(op: '$inc' | '$mul', current: unknown, operand: unknown): unknown {
  const b = numericKind(operand);
  if (current === undefined) {
    if (op === '$inc' || b === undefined) return operand;
    return b === 'long' ? Long.fromNumber(0) : b === 'double' ? asDouble(0) : b === 'int' ? 0 : undefined;
  }
  const a = numericKind(current);
  if (a === undefined || b === undefined || a === 'decimal' || b === 'decimal') return undefined;
  if (a === 'double' || b === 'double') {
    const x = Number((current as number).valueOf());
    const y = Number((operand as number).valueOf());
    return asDouble(op === '$inc' ? x + y : x * y);
  }
  const x = BigInt(String(current));
  const y = BigInt(String(operand));
  const r = op === '$inc' ? x + y : x * y;
  if (a === 'int' && b === 'int' && isInt32(Number(r))) return Number(r);
  if (r >= INT64_MIN && r <= INT64_MAX) return Long.fromBigInt(r);
  // mongod has no wider integer: an int64 overflow fails the update.
  throw new StoreError('BadValue', `Failed to apply ${op} operations to current value ((NumberLong)${x}) for document`);
}

/** A double result, as the cheapest value that serialises as one (stored-values.ts). */
const asDouble = (n: number): unknown => (isInt32(n) ? new Double(n) : n);

function setExistingPath(doc: Document, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur: unknown = doc;
  for (const part of parts.slice(0, -1)) {
    if (cur === null || typeof cur !== 'object') return;
    cur = (cur as Document)[part];
  }
  const last = parts[parts.length - 1];
  if (cur !== null && typeof cur === 'object' && Object.hasOwn(cur, last)) (cur as Document)[last] = value;
}
