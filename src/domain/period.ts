/**
 * Period arithmetic shared by targets, metrics and time series. All dates are UTC.
 *
 * Values (from the REST contract): `Q1`–`Q4` are calendar quarters, `m1`–`m12` months, and
 * `w1`–`w52` weeks where `wN` starts on day 7·(N−1)+1 of the year and `w52` runs to 31 December
 * (so w52 has 8 days, or 9 in a leap year). Weeks therefore never straddle years.
 */
export type PeriodUnit = 'weekly' | 'monthly' | 'quarterly';

export const PERIOD_UNITS: readonly PeriodUnit[] = ['weekly', 'monthly', 'quarterly'];

export interface PeriodSlot {
  unit: PeriodUnit;
  /** 1-based index inside the year. */
  index: number;
  year: number;
  /** `Q3`, `m7`, `w27`. */
  label: string;
  /** First day, `YYYY-MM-DD`. */
  start: string;
  /** Last day (inclusive), `YYYY-MM-DD`. */
  end: string;
  /** Start instant, inclusive. */
  startsAt: Date;
  /** Instant just after the last day: exclusive upper bound. */
  endsBefore: Date;
}

const PREFIX: Record<PeriodUnit, string> = { weekly: 'w', monthly: 'm', quarterly: 'Q' };
const COUNT: Record<PeriodUnit, number> = { weekly: 52, monthly: 12, quarterly: 4 };
const DAY_MS = 86_400_000;

export function isPeriodUnit(value: unknown): value is PeriodUnit {
  return typeof value === 'string' && (PERIOD_UNITS as readonly string[]).includes(value);
}

/** Number of periods in a year: 52, 12 or 4. */
export function periodsPerYear(unit: PeriodUnit): number {
  return COUNT[unit];
}

/** The labels of one year, in time order: `["Q1","Q2","Q3","Q4"]`. */
export function periodLabels(unit: PeriodUnit): string[] {
  return Array.from({ length: COUNT[unit] }, (_, i) => `${PREFIX[unit]}${i + 1}`);
}

function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The slot with the given 1-based index in `year`. */
export function periodSlot(unit: PeriodUnit, year: number, index: number): PeriodSlot {
  const count = COUNT[unit];
  if (!Number.isInteger(index) || index < 1 || index > count) {
    throw new RangeError(`period index must be 1..${count} for ${unit}, got ${index}`);
  }
  let startsAt: Date;
  let endsBefore: Date;
  switch (unit) {
    case 'quarterly':
      startsAt = new Date(Date.UTC(year, (index - 1) * 3, 1));
      endsBefore = new Date(Date.UTC(year, index * 3, 1));
      break;
    case 'monthly':
      startsAt = new Date(Date.UTC(year, index - 1, 1));
      endsBefore = new Date(Date.UTC(year, index, 1));
      break;
    case 'weekly':
      startsAt = new Date(Date.UTC(year, 0, 1) + (index - 1) * 7 * DAY_MS);
      endsBefore =
        index === count
          ? new Date(Date.UTC(year + 1, 0, 1))
          : new Date(startsAt.getTime() + 7 * DAY_MS);
      break;
  }
  return {
    unit,
    index,
    year,
    label: `${PREFIX[unit]}${index}`,
    start: isoDay(startsAt),
    end: isoDay(new Date(endsBefore.getTime() - DAY_MS)),
    startsAt,
    endsBefore,
  };
}

/**
 * The year of the slot containing `date`, without building the slot: every unit divides the UTC
 * calendar year (the last week runs to December 31), so it is the date's UTC year.
 */
export function periodYearOf(date: Date): number {
  return date.getUTCFullYear();
}

/** The slot containing `date`. */
export function periodOf(unit: PeriodUnit, date: Date): PeriodSlot {
  const year = date.getUTCFullYear();
  switch (unit) {
    case 'quarterly':
      return periodSlot(unit, year, Math.floor(date.getUTCMonth() / 3) + 1);
    case 'monthly':
      return periodSlot(unit, year, date.getUTCMonth() + 1);
    case 'weekly': {
      const dayOfYear = Math.floor((date.getTime() - Date.UTC(year, 0, 1)) / DAY_MS); // 0-based
      return periodSlot(unit, year, Math.min(COUNT.weekly, Math.floor(dayOfYear / 7) + 1));
    }
  }
}

/** The slot immediately before `slot`, crossing into the previous year after index 1. */
export function previousPeriod(slot: PeriodSlot): PeriodSlot {
  return slot.index > 1
    ? periodSlot(slot.unit, slot.year, slot.index - 1)
    : periodSlot(slot.unit, slot.year - 1, COUNT[slot.unit]);
}

/** `count` consecutive slots ending with the one containing `date`, oldest first. */
export function periodsEndingAt(unit: PeriodUnit, date: Date, count: number): PeriodSlot[] {
  const slots: PeriodSlot[] = [periodOf(unit, date)];
  while (slots.length < count) slots.unshift(previousPeriod(slots[0]));
  return slots;
}
