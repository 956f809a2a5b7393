import { Decimal128, Double, Long } from 'bson';
import { decimalArithmetic } from '../../../src/store/query/decimal-arithmetic';

const text = (d: Decimal128): string => d.toString();
const dec = (s: string): Decimal128 => Decimal128.fromString(s);

describe('decimalArithmetic', () => {
  it('adds at the smaller exponent and multiplies at the sum of the exponents, exactly', () => {
    expect(text(decimalArithmetic('$inc', dec('1.5'), dec('0.25')))).toBe('1.75');
    expect(text(decimalArithmetic('$inc', dec('0.10'), dec('0.20')))).toBe('0.30');
    expect(text(decimalArithmetic('$mul', dec('2.50'), Long.fromNumber(2)))).toBe('5.00');
    expect(text(decimalArithmetic('$mul', dec('1E+3'), dec('-2')))).toBe('-2E+3');
  });

  it('reads integers exactly and doubles to 15 significant digits', () => {
    expect(text(decimalArithmetic('$inc', dec('1'), Long.fromString('9007199254740993')))).toBe(
      '9007199254740994',
    );
    expect(text(decimalArithmetic('$inc', dec('1'), 0.1))).toBe('1.100000000000000');
    expect(text(decimalArithmetic('$inc', dec('0'), new Double(2)))).toBe('2.00000000000000');
  });

  it('keeps NaN and the infinities', () => {
    expect(text(decimalArithmetic('$inc', dec('NaN'), 1))).toBe('NaN');
    expect(text(decimalArithmetic('$mul', dec('Infinity'), -2))).toBe('-Infinity');
    expect(text(decimalArithmetic('$mul', dec('Infinity'), dec('0')))).toBe('NaN');
  });
});
