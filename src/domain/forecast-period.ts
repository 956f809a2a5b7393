import { periodOf, periodSlot, periodsPerYear, PeriodSlot, PeriodUnit } from './period';

/** Years a forecast period may name: those targets may be set for. */
export const FORECAST_YEARS = { min: 2000, max: 2100 } as const;

const PREFIX: Record<PeriodUnit, string> = { weekly: 'w', monthly: 'm', quarterly: 'Q' };

/** An example of each unit's names, for messages. */
export const PERIOD_NAME_EXAMPLE: Record<PeriodUnit, string> = {
  quarterly: '2026-Q4',
  monthly: '2026-m11',
  weekly: '2026-w47',
};

/** A period with its year, as forecasts name it: `2026-Q4`, `2026-m11`, `2026-w47`. */
export function periodName(slot: PeriodSlot): string {
  return `${slot.year}-${slot.label}`;
}

/** Why a period name is refused, or the slot it names. */
export type ParsedPeriodName = { slot: PeriodSlot } | { problem: string };

/**
 * The slot `name` names in `unit`: `<year>-Q<1..4>` quarterly, `<year>-m<1..12>` monthly,
 * `<year>-w<1..52>` weekly (the letter in either case). A name in another unit, or out of range,
 * is a problem saying what was expected.
 */
export function parsePeriodName(name: string, unit: PeriodUnit): ParsedPeriodName {
  const expected = `a ${unit.replace(/ly$/, '')} of the configured ${unit} period, such as ${PERIOD_NAME_EXAMPLE[unit]}`;
  const match = /^(\d{4})-([QqMmWw])(\d{1,2})$/.exec(name);
  if (!match) return { problem: `expected ${expected}, got "${name.slice(0, 40)}"` };
  const year = Number(match[1]);
  const letter = match[2].toLowerCase();
  const index = Number(match[3]);
  if (letter !== PREFIX[unit].toLowerCase())
    return { problem: `expected ${expected}, got "${name}" (the periods are ${unit})` };
  if (year < FORECAST_YEARS.min || year > FORECAST_YEARS.max)
    return {
      problem: `expected a year from ${FORECAST_YEARS.min} to ${FORECAST_YEARS.max}, got "${name}"`,
    };
  const count = periodsPerYear(unit);
  if (index < 1 || index > count)
    return {
      problem: `expected ${PREFIX[unit]}1 to ${PREFIX[unit]}${count} after the year, got "${name}"`,
    };
  return { slot: periodSlot(unit, year, index) };
}

/** The slot containing `at`: the current period when `at` is the forecast clock. */
export function currentPeriod(unit: PeriodUnit, at: Date): PeriodSlot {
  return periodOf(unit, at);
}

/** Whether the period is over at `at` (its last day has passed). */
export function periodEnded(slot: PeriodSlot, at: Date): boolean {
  return at.getTime() >= slot.endsBefore.getTime();
}
