/**
 * The forecast cadence: forecasts are due every week on a weekday, or every month on a day of the
 * month (1–28, so every month has it). A cadence point is the start (00:00 UTC) of such a day; a
 * cadence interval runs from one point to the next. All dates are UTC.
 */
export type Weekday =
  'monday' | 'tuesday' | 'wednesday' | 'thursday' | 'friday' | 'saturday' | 'sunday';

/** In `Date.getUTCDay()` order, Sunday first. */
export const WEEKDAYS: readonly Weekday[] = [
  'sunday',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
];

export type CadenceEvery = 'week' | 'month';

export const CADENCE_EVERY: readonly CadenceEvery[] = ['week', 'month'];

/** The last day of the month a monthly cadence may name: every month has it. */
export const MAX_CADENCE_MONTH_DAY = 28;

export type ForecastCadence = { every: 'week'; day: Weekday } | { every: 'month'; day: number };

const DAY_MS = 86_400_000;

function startOfDay(at: Date): number {
  return Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
}

/** Why `{ every, day }` is not a cadence, or the cadence. */
export function parseCadence(
  every: unknown,
  day: unknown,
): { cadence: ForecastCadence } | { field: 'every' | 'day'; problem: string } {
  if (every === 'week') {
    const name = typeof day === 'string' ? day.toLowerCase() : day;
    if (typeof name === 'string' && (WEEKDAYS as readonly string[]).includes(name))
      return { cadence: { every, day: name as Weekday } };
    return { field: 'day', problem: 'must be a weekday, monday to sunday, when every is "week"' };
  }
  if (every === 'month') {
    if (
      typeof day === 'number' &&
      Number.isInteger(day) &&
      day >= 1 &&
      day <= MAX_CADENCE_MONTH_DAY
    )
      return { cadence: { every, day } };
    return {
      field: 'day',
      problem: `must be a day of the month from 1 to ${MAX_CADENCE_MONTH_DAY} when every is "month"`,
    };
  }
  return { field: 'every', problem: 'must be "week" or "month"' };
}

/** The latest cadence point at or before `at`. */
export function cadencePointAtOrBefore(cadence: ForecastCadence, at: Date): Date {
  const day = startOfDay(at);
  if (cadence.every === 'week') {
    const want = WEEKDAYS.indexOf(cadence.day);
    const back = (new Date(day).getUTCDay() - want + 7) % 7;
    return new Date(day - back * DAY_MS);
  }
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth();
  const thisMonth = Date.UTC(year, month, cadence.day);
  return new Date(thisMonth <= at.getTime() ? thisMonth : Date.UTC(year, month - 1, cadence.day));
}

/** The cadence point after `point` (itself a cadence point). */
export function nextCadencePoint(cadence: ForecastCadence, point: Date): Date {
  if (cadence.every === 'week') return new Date(point.getTime() + 7 * DAY_MS);
  return new Date(Date.UTC(point.getUTCFullYear(), point.getUTCMonth() + 1, cadence.day));
}

/** The cadence interval containing `at`: `[start, end)`. */
export function cadenceInterval(cadence: ForecastCadence, at: Date): { start: Date; end: Date } {
  const start = cadencePointAtOrBefore(cadence, at);
  return { start, end: nextCadencePoint(cadence, start) };
}

/** The cadence points `p` with `after < p < before`, oldest first. */
export function cadencePointsBetween(cadence: ForecastCadence, after: Date, before: Date): Date[] {
  const points: Date[] = [];
  let point = nextCadencePoint(cadence, cadencePointAtOrBefore(cadence, after));
  while (point.getTime() < before.getTime()) {
    points.push(point);
    point = nextCadencePoint(cadence, point);
  }
  return points;
}
