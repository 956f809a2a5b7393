import { calculateObjectSize } from 'bson';
import { packDayBuckets, unpackDayBuckets } from '../../src/models/packed-day-buckets';
import type { DayBucket } from '../../src/domain/pipeline-facts';

const bucket = (d: number, fields: Partial<DayBucket> = {}): DayBucket => ({
  d,
  wonCount: 0,
  wonAmount: 0,
  lostCount: 0,
  cycleCount: 0,
  cycleDays: 0,
  openAmount: 0,
  ...fields,
});

describe('packed day buckets', () => {
  it('read back exactly: zeros, small and large whole numbers, fractions, negatives, huge values', () => {
    const days = [
      bucket(0),
      bucket(1, { wonCount: 1, wonAmount: 12_000, cycleCount: 1, cycleDays: 41.5 }),
      bucket(2, { lostCount: 65_535, openAmount: 65_536 }),
      bucket(200, { wonAmount: 4_294_967_295, openAmount: 4_294_967_296 }),
      bucket(364, { wonAmount: -250.75, openAmount: 0.1 + 0.2, cycleDays: 1e300 }),
      bucket(365, { openAmount: Number.MAX_SAFE_INTEGER, wonCount: 3 }),
    ];
    expect(unpackDayBuckets(packDayBuckets(days))).toEqual(days);
    expect(unpackDayBuckets(packDayBuckets([]))).toEqual([]);
  });

  it('take a fraction of the bytes of the same buckets as BSON subdocuments', () => {
    const days = Array.from({ length: 366 }, (_, d) =>
      d < 320
        ? bucket(d, {
            wonCount: 2,
            wonAmount: 24_000,
            cycleCount: 2,
            cycleDays: 80.25,
            lostCount: 1,
          })
        : bucket(d, { openAmount: 130_500 }),
    );
    const packed = packDayBuckets(days).length;
    expect(packed * 3).toBeLessThan(calculateObjectSize({ days }));
  });

  it('refuse bytes cut inside a bucket', () => {
    const packed = packDayBuckets([bucket(3, { wonAmount: 1.5 })]);
    expect(() => unpackDayBuckets(packed.subarray(0, 2))).toThrow(
      'packed day buckets end inside a bucket header at byte 0',
    );
    expect(() => unpackDayBuckets(packed.subarray(0, 7))).toThrow(
      'packed day buckets end inside day 3',
    );
  });
});
