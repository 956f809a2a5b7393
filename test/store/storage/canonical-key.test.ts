import { Decimal128, Long, ObjectId } from 'bson';
import { canonicalKey } from '../../../src/store/storage/canonical-key';

describe('canonicalKey', () => {
  it('equates numbers of every BSON type by value', () => {
    expect(canonicalKey(1)).toBe(canonicalKey(1.0));
    expect(canonicalKey(1)).toBe(canonicalKey(Long.fromNumber(1)));
    expect(canonicalKey(1)).toBe(canonicalKey(Decimal128.fromString('1')));
    expect(canonicalKey(0)).toBe(canonicalKey(-0));
    expect(canonicalKey(1)).not.toBe(canonicalKey('1'));
  });

  it('equates ObjectIds by bytes and Dates by instant', () => {
    const id = new ObjectId();
    expect(canonicalKey(id)).toBe(canonicalKey(new ObjectId(id.toHexString())));
    expect(canonicalKey(new Date(5))).toBe(canonicalKey(new Date(5)));
    expect(canonicalKey(id)).not.toBe(canonicalKey(id.toHexString()));
  });

  it('keeps field order in documents and cannot be fooled by separators in strings', () => {
    expect(canonicalKey({ a: 1, b: 2 })).not.toBe(canonicalKey({ b: 2, a: 1 }));
    expect(canonicalKey(['a,s"b'])).not.toBe(canonicalKey(['a', 'b']));
    expect(canonicalKey(null)).toBe(canonicalKey(undefined));
  });
});
