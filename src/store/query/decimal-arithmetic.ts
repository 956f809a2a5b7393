import { Decimal128 } from 'bson';
import { isInt32 } from '../storage/stored-values';

/**
 * `$inc`/`$mul` arithmetic with a Decimal128 on either side, as mongod does it: exact on the
 * decimal coefficients (IEEE 754 decimal128, rounded to 34 digits only when the result needs
 * more), the other side read as a decimal first (a double rounded to 15 significant digits).
 */
export function decimalArithmetic(op: '$inc' | '$mul', a: unknown, b: unknown): Decimal128 {
  const [ta, tb] = [decimalText(a), decimalText(b)];
  const [x, y] = [parts(ta), parts(tb)];
  if (typeof x === 'number' || typeof y === 'number') {
    // NaN or an infinity takes part: so is the result (NaN for ∞ - ∞ and ∞ × 0).
    const [nx, ny] = [Number(ta), Number(tb)];
    return Decimal128.fromString(String(op === '$inc' ? nx + ny : nx * ny));
  }
  if (op === '$mul')
    return Decimal128.fromStringWithRounding(
      `${x.coefficient * y.coefficient}E${x.exponent + y.exponent}`,
    );
  const exponent = Math.min(x.exponent, y.exponent);
  const sum =
    x.coefficient * 10n ** BigInt(x.exponent - exponent) +
    y.coefficient * 10n ** BigInt(y.exponent - exponent);
  return Decimal128.fromStringWithRounding(`${sum}E${exponent}`);
}

/** A finite decimal as coefficient × 10^exponent; NaN and the infinities as JS numbers. */
type Parts = { coefficient: bigint; exponent: number } | number;

const DECIMAL_FORM = /^([+-]?)(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

function parts(text: string): Parts {
  const m = DECIMAL_FORM.exec(text);
  if (!m) return Number(text);
  const [, sign, whole, fraction = '', exponent = '0'] = m;
  return {
    coefficient: BigInt(`${sign}${whole}${fraction}`),
    exponent: Number(exponent) - fraction.length,
  };
}

/** A stored number as mongod converts it to a decimal. */
function decimalText(v: unknown): string {
  if (typeof v === 'number') return isInt32(v) ? String(v) : v.toPrecision(15);
  switch ((v as { _bsontype?: string })._bsontype) {
    case 'Double':
      return Number((v as { valueOf(): number }).valueOf()).toPrecision(15);
    default:
      // Int32, Long and Decimal128 print exactly.
      return String(v);
  }
}
