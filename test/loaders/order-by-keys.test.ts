import { groupByKeys, orderByKeys } from '../../src/loaders/order-by-keys';

describe('orderByKeys', () => {
  const rows = [
    { id: 'c', v: 3 },
    { id: 'a', v: 1 },
  ];

  it('returns one row per key, in key order, null for misses', () => {
    expect(orderByKeys(['a', 'b', 'c'], rows, (r) => r.id)).toEqual([
      { id: 'a', v: 1 },
      null,
      { id: 'c', v: 3 },
    ]);
  });

  it('answers repeated keys with the same row', () => {
    expect(orderByKeys(['c', 'c'], rows, (r) => r.id)).toEqual([rows[0], rows[0]]);
  });

  it('rejects only the missing key when onMissing returns an Error', () => {
    const out = orderByKeys(['a', 'x'], rows, (r) => r.id, {
      onMissing: (k) => new Error(`no ${k}`),
    });
    expect(out[0]).toEqual({ id: 'a', v: 1 });
    expect(out[1]).toBeInstanceOf(Error);
    expect((out[1] as Error).message).toBe('no x');
  });

  it('matches composite keys through keyOf', () => {
    const targets = [
      { memberId: 'm1', year: 2025 },
      { memberId: 'm1', year: 2026 },
    ];
    const key = (k: { memberId: string; year: number }) => `${k.memberId}/${k.year}`;
    expect(
      orderByKeys(
        [
          { memberId: 'm1', year: 2026 },
          { memberId: 'm2', year: 2026 },
        ],
        targets,
        key,
        { keyOf: key },
      ),
    ).toEqual([targets[1], null]);
  });

  it('keeps the first of several rows with the same key', () => {
    expect(
      orderByKeys(
        ['a'],
        [
          { id: 'a', v: 1 },
          { id: 'a', v: 2 },
        ],
        (r) => r.id,
      ),
    ).toEqual([{ id: 'a', v: 1 }]);
  });
});

describe('groupByKeys', () => {
  it('groups rows per key in key order, keeping row order, [] for keys without rows', () => {
    const rows = [
      { team: 't2', id: 1 },
      { team: 't1', id: 2 },
      { team: 't2', id: 3 },
    ];
    expect(groupByKeys(['t1', 't3', 't2'], rows, (r) => r.team)).toEqual([
      [rows[1]],
      [],
      [rows[0], rows[2]],
    ]);
  });
});
