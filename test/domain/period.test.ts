import {
  PERIOD_UNITS,
  periodLabels,
  periodOf,
  periodSlot,
  periodYearOf,
  periodsEndingAt,
  periodsPerYear,
} from '../../src/domain/period';

describe('period arithmetic', () => {
  it('lists the labels of each unit in time order', () => {
    expect(periodLabels('quarterly')).toEqual(['Q1', 'Q2', 'Q3', 'Q4']);
    expect(periodLabels('monthly')).toHaveLength(12);
    expect(periodLabels('monthly')[11]).toBe('m12');
    expect(periodLabels('weekly')).toHaveLength(periodsPerYear('weekly'));
    expect(periodLabels('weekly')[51]).toBe('w52');
  });

  it('starts week N on day 7(N-1)+1 and runs w52 to 31 December', () => {
    expect(periodSlot('weekly', 2026, 1)).toMatchObject({ start: '2026-01-01', end: '2026-01-07' });
    expect(periodSlot('weekly', 2026, 2)).toMatchObject({ start: '2026-01-08', end: '2026-01-14' });
    // day 358 = 7*51+1 → 24 December
    expect(periodSlot('weekly', 2026, 52)).toMatchObject({
      start: '2026-12-24',
      end: '2026-12-31',
    });
    // leap year: w52 starts on 23 December and has 9 days
    expect(periodSlot('weekly', 2024, 52)).toMatchObject({
      start: '2024-12-23',
      end: '2024-12-31',
    });
    expect(periodOf('weekly', new Date('2024-12-31T23:59:59Z')).label).toBe('w52');
    expect(periodOf('weekly', new Date('2026-01-07T23:59:59Z')).label).toBe('w1');
    expect(periodOf('weekly', new Date('2026-01-08T00:00:00Z')).label).toBe('w2');
  });

  it('gives the year of the slot containing a date without building it, at every year edge', () => {
    const edges = [
      '2024-01-01T00:00:00Z',
      '2024-12-31T23:59:59.999Z',
      '2025-01-01T00:00:00Z',
      '2026-12-24T00:00:00Z',
      '2026-12-31T12:00:00Z',
    ];
    for (const unit of PERIOD_UNITS) {
      for (const edge of edges)
        expect({ unit, edge, year: periodYearOf(new Date(edge)) }).toEqual({
          unit,
          edge,
          year: periodOf(unit, new Date(edge)).year,
        });
    }
  });

  it('maps dates to calendar quarters and months', () => {
    expect(periodOf('quarterly', new Date('2026-09-30T23:00:00Z'))).toMatchObject({
      label: 'Q3',
      year: 2026,
      start: '2026-07-01',
      end: '2026-09-30',
    });
    expect(periodOf('monthly', new Date('2024-02-29T12:00:00Z'))).toMatchObject({
      label: 'm2',
      end: '2024-02-29',
    });
  });

  it('walks back across year boundaries, oldest first', () => {
    const slots = periodsEndingAt('quarterly', new Date('2026-02-01T00:00:00Z'), 3);
    expect(slots.map((s) => `${s.year}-${s.label}`)).toEqual(['2025-Q3', '2025-Q4', '2026-Q1']);
    const weeks = periodsEndingAt('weekly', new Date('2026-01-03T00:00:00Z'), 2);
    expect(weeks.map((s) => `${s.year}-${s.label}`)).toEqual(['2025-w52', '2026-w1']);
  });

  it('rejects an index outside the year', () => {
    expect(() => periodSlot('quarterly', 2026, 5)).toThrow(
      'period index must be 1..4 for quarterly, got 5',
    );
  });
});
