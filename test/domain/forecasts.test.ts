import {
  cadenceInterval,
  cadencePointAtOrBefore,
  cadencePointsBetween,
  parseCadence,
} from '../../src/domain/forecast-cadence';
import {
  categoryOfProbability,
  parseCrmForecastCategory,
  resolveForecastCategory,
} from '../../src/domain/forecast-category';
import {
  addForecastDays,
  emptySums,
  epochDay,
  ForecastDaysAccumulator,
  type ForecastDay,
} from '../../src/domain/forecast-days';
import { parsePeriodName, periodEnded, periodName } from '../../src/domain/forecast-period';
import { periodSlot } from '../../src/domain/period';
import { packForecastDays, unpackForecastDays } from '../../src/models/packed-forecast-days';

const at = (iso: string) => new Date(iso);

describe('forecast categories', () => {
  it('read the CRMs’ spellings and name what they cannot read', () => {
    expect(parseCrmForecastCategory('BEST_CASE')).toBe('best_case');
    expect(parseCrmForecastCategory('Best Case')).toBe('best_case');
    expect(parseCrmForecastCategory('OMIT')).toBe('omitted');
    expect(parseCrmForecastCategory('Omitted')).toBe('omitted');
    expect(parseCrmForecastCategory('Not forecasted')).toBe('omitted');
    expect(parseCrmForecastCategory('CLOSED')).toBe('closed');
    expect(parseCrmForecastCategory(' ')).toBeNull();
    expect(parseCrmForecastCategory(null)).toBeNull();
    expect(parseCrmForecastCategory('Upside')).toEqual({ unknown: 'Upside' });
  });

  it('apply the probability rule at 0.8 and 0.5', () => {
    expect([0, 0.49, 0.5, 0.79, 0.8, 1].map(categoryOfProbability)).toEqual([
      'pipeline',
      'pipeline',
      'best_case',
      'best_case',
      'commit',
      'commit',
    ]);
  });

  it('take the outcome first, then the CRM (never closed for an open deal), the mapping, the probability', () => {
    const open = { outcome: 'open' as const, crm: null, mapped: null, probability: 0.9 };
    expect(resolveForecastCategory({ ...open, outcome: 'won', crm: 'pipeline' })).toEqual({
      category: 'closed',
      source: 'outcome',
    });
    expect(resolveForecastCategory({ ...open, outcome: 'lost', crm: 'commit' })).toEqual({
      category: 'omitted',
      source: 'outcome',
    });
    expect(resolveForecastCategory({ ...open, crm: 'pipeline', mapped: 'commit' })).toEqual({
      category: 'pipeline',
      source: 'crm',
    });
    expect(resolveForecastCategory({ ...open, crm: 'closed', mapped: 'best_case' })).toEqual({
      category: 'best_case',
      source: 'mapping',
    });
    expect(resolveForecastCategory(open)).toEqual({ category: 'commit', source: 'probability' });
  });
});

describe('forecast periods', () => {
  it('name their year, in the configured unit only', () => {
    expect(periodName(periodSlot('quarterly', 2026, 4))).toBe('2026-Q4');
    expect(parsePeriodName('2026-q4', 'quarterly')).toEqual({
      slot: periodSlot('quarterly', 2026, 4),
    });
    expect(parsePeriodName('2026-m11', 'monthly')).toEqual({
      slot: periodSlot('monthly', 2026, 11),
    });
    expect(parsePeriodName('2026-w52', 'weekly')).toEqual({ slot: periodSlot('weekly', 2026, 52) });
    for (const [name, unit] of [
      ['2026-m11', 'quarterly'],
      ['2026-w53', 'weekly'],
      ['2026-m0', 'monthly'],
      ['26-Q1', 'quarterly'],
      ['2101-Q1', 'quarterly'],
    ] as const)
      expect(parsePeriodName(name, unit)).toHaveProperty('problem');
  });

  it('end when their last day has passed', () => {
    const q4 = periodSlot('quarterly', 2026, 4);
    expect(periodEnded(q4, at('2026-12-31T23:59:59Z'))).toBe(false);
    expect(periodEnded(q4, at('2027-01-01T00:00:00Z'))).toBe(true);
  });
});

describe('the cadence', () => {
  const weekly = { every: 'week', day: 'monday' } as const;
  const monthly = { every: 'month', day: 15 } as const;

  it('is a weekday every week or a day from 1 to 28 every month', () => {
    expect(parseCadence('week', 'Friday')).toEqual({ cadence: { every: 'week', day: 'friday' } });
    expect(parseCadence('month', 28)).toEqual({ cadence: { every: 'month', day: 28 } });
    expect(parseCadence('month', 29)).toMatchObject({ field: 'day' });
    expect(parseCadence('week', 1)).toMatchObject({ field: 'day' });
    expect(parseCadence('year', 1)).toMatchObject({ field: 'every' });
  });

  it('has its points at the start of its days, UTC', () => {
    // 2026-11-23 is a Monday.
    expect(cadencePointAtOrBefore(weekly, at('2026-11-23T00:00:00Z'))).toEqual(
      at('2026-11-23T00:00:00Z'),
    );
    expect(cadencePointAtOrBefore(weekly, at('2026-11-22T23:59:59Z'))).toEqual(
      at('2026-11-16T00:00:00Z'),
    );
    expect(cadenceInterval(weekly, at('2026-11-27T15:00:00Z'))).toEqual({
      start: at('2026-11-23T00:00:00Z'),
      end: at('2026-11-30T00:00:00Z'),
    });
    expect(cadenceInterval(monthly, at('2026-01-10T00:00:00Z'))).toEqual({
      start: at('2025-12-15T00:00:00Z'),
      end: at('2026-01-15T00:00:00Z'),
    });
  });

  it('lists the points strictly between two instants', () => {
    expect(
      cadencePointsBetween(weekly, at('2026-11-01T00:00:00Z'), at('2026-12-01T00:00:00Z')),
    ).toEqual(
      ['2026-11-02', '2026-11-09', '2026-11-16', '2026-11-23', '2026-11-30'].map((d) =>
        at(`${d}T00:00:00Z`),
      ),
    );
    expect(
      cadencePointsBetween(weekly, at('2026-11-02T00:00:00Z'), at('2026-11-09T00:00:00Z')),
    ).toEqual([]);
    expect(
      cadencePointsBetween(monthly, at('2026-10-01T00:00:00Z'), at('2027-01-01T00:00:00Z')),
    ).toEqual(['2026-10-15', '2026-11-15', '2026-12-15'].map((d) => at(`${d}T00:00:00Z`)));
  });
});

describe('forecast days', () => {
  it('sum won and open amounts by category, by close day of any year', () => {
    const acc = new ForecastDaysAccumulator();
    const close = at('2027-02-03T10:00:00Z');
    acc.add({ amount: 100, closedAt: close, outcome: 'won', forecastCategory: 'closed' });
    acc.add({ amount: 50, closedAt: close, outcome: 'open', forecastCategory: 'commit' });
    acc.add({ amount: 20, closedAt: close, outcome: 'open', forecastCategory: 'best_case' });
    acc.add({
      amount: 5,
      closedAt: at('2025-06-01T00:00:00Z'),
      outcome: 'open',
      forecastCategory: 'pipeline',
    });
    acc.add({ amount: 7, closedAt: close, outcome: 'open', forecastCategory: 'omitted' });
    acc.add({ amount: 9, closedAt: close, outcome: 'lost', forecastCategory: 'omitted' });
    acc.add({ amount: 11, closedAt: null, outcome: 'open', forecastCategory: 'commit' });
    const days = acc.result();
    expect(days).toEqual([
      { day: epochDay(at('2025-06-01T00:00:00Z')), won: 0, commit: 0, bestCase: 0, pipeline: 5 },
      { day: epochDay(close), won: 100, commit: 50, bestCase: 20, pipeline: 0 },
    ]);
    const q1 = periodSlot('quarterly', 2027, 1);
    expect(
      addForecastDays(emptySums(), days, epochDay(q1.startsAt), epochDay(q1.endsBefore)),
    ).toEqual({
      closed: 100,
      commit: 50,
      bestCase: 20,
      pipeline: 0,
    });
  });

  it('read back exactly once packed, whatever the day and the amounts', () => {
    const days: ForecastDay[] = [
      { day: -400, won: 0, commit: 0, bestCase: 0, pipeline: 0 },
      { day: 0, won: 65_535, commit: 65_536, bestCase: 4_294_967_296, pipeline: 0.1 + 0.2 },
      { day: 20_000, won: -5, commit: 1e300, bestCase: 1, pipeline: Number.MAX_SAFE_INTEGER },
    ];
    expect(unpackForecastDays(packForecastDays(days))).toEqual(days);
    expect(() => unpackForecastDays(packForecastDays(days).subarray(0, 7))).toThrow(RangeError);
  });
});
