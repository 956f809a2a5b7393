import { Double, Long } from 'bson';
import { StoreError } from '../errors';
import { canonicalKey } from '../storage/canonical-key';
import { cloneDocument, isPlainObject } from '../storage/document-paths';
import { isInt32 } from '../storage/stored-values';
import { decimalArithmetic } from './decimal-arithmetic';
import { retypeElements } from './mingo-view';

/**
 * The value mongod stores for one operator write whose value mingo computed on views
 * (mingo-view.ts), where every numeric type is a plain number. `before` is the field's stored
 * value (undefined when missing), `arg` the operator's argument for it, `computed` mingo's result.
 */
export function storedResult(
  op: string,
  before: unknown,
  arg: unknown,
  computed: unknown,
): unknown {
  switch (op) {
    case '$min':
    case '$max':
      // The winner is stored as given, with its own type; a draw changes nothing.
      if (before !== undefined && canonicalKey(computed) === canonicalKey(before)) return before;
      return canonicalKey(computed) === canonicalKey(arg) ? cloneDocument(arg) : computed;
    case '$bit':
      return typedBits(before, arg) ?? computed;
    case '$push':
    case '$addToSet':
      return Array.isArray(computed)
        ? retypeElements(computed, [...elementsOf(before), ...pushedValues(arg)])
        : computed;
    case '$pop':
    case '$pullAll':
      return Array.isArray(computed) ? retypeElements(computed, elementsOf(before)) : computed;
    default:
      return computed;
  }
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
 * The result of `$inc`/`$mul` on a field's stored value (undefined when missing), computed by the
 * store with the BSON type mongod gives it: int32 stays int32 unless the result overflows, then it
 * is a long; a long stays a long (computed exactly); anything with a double is a double, anything
 * with a decimal a decimal. A missing field takes the operand's type (`$mul` sets it to zero of
 * that type); an int64 overflow is refused. Both sides are numbers (checked before).
 */
export function arithmeticResult(op: '$inc' | '$mul', current: unknown, operand: unknown): unknown {
  const b = numericKind(operand);
  if (current === undefined) {
    if (op === '$inc') return cloneDocument(operand);
    return b === 'long'
      ? Long.fromNumber(0)
      : b === 'double'
        ? asDouble(0)
        : b === 'decimal'
          ? decimalArithmetic('$mul', 0, operand)
          : 0;
  }
  const a = numericKind(current);
  if (a === 'decimal' || b === 'decimal') return decimalArithmetic(op, current, operand);
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
  throw new StoreError(
    'BadValue',
    `Failed to apply ${op} operations to current value ((NumberLong)${x}) for document`,
  );
}

/** A double result, as the cheapest value that serialises as one (stored-values.ts). */
const asDouble = (n: number): unknown => (isInt32(n) ? new Double(n) : n);

/**
 * A `$bit` result where a long takes part: a long, computed on all 64 bits (mingo's bitwise
 * operators work on 32). Undefined when only int32s do: mingo's result is then exact.
 */
function typedBits(current: unknown, arg: unknown): Long | undefined {
  if (!isPlainObject(arg)) return undefined;
  const operands = Object.entries(arg);
  if (numericKind(current) !== 'long' && !operands.some(([, v]) => numericKind(v) === 'long'))
    return undefined;
  if (
    ![current ?? 0, ...operands.map(([, v]) => v)].every(
      (v) => numericKind(v) === 'int' || numericKind(v) === 'long',
    )
  )
    return undefined;
  let r = BigInt(String(current ?? 0));
  for (const [how, v] of operands) {
    const y = BigInt(String(v));
    r = how === 'and' ? r & y : how === 'or' ? r | y : r ^ y;
  }
  return Long.fromBigInt(BigInt.asIntN(64, r));
}

const elementsOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function pushedValues(arg: unknown): unknown[] {
  if (isPlainObject(arg) && Object.hasOwn(arg, '$each')) return elementsOf(arg.$each);
  return [arg];
}
