import { PeriodUnit, periodOf, previousPeriod, PeriodSlot } from '../domain/period';

/** At most this many past periods are reconstructed (the time-series maximum). */
export const MAX_BACKFILL_PERIODS = 104;

/**
 * The past period ends a backfill writes snapshots for, oldest first: one per period from the one
 * containing `earliest` (the earliest deal creation) up to the one before the period of `now`,
 * at most 104. Each snapshot sits at the last millisecond of its period, so it is "the last
 * snapshot inside that period" for time series.
 */
export function backfillPeriodEnds(
  unit: PeriodUnit,
  earliest: Date | null,
  now: Date,
): { slot: PeriodSlot; at: Date }[] {
  if (earliest === null) return [];
  const first = periodOf(unit, earliest);
  const result: { slot: PeriodSlot; at: Date }[] = [];
  let slot = previousPeriod(periodOf(unit, now));
  while (
    slot.startsAt.getTime() >= first.startsAt.getTime() &&
    result.length < MAX_BACKFILL_PERIODS
  ) {
    result.unshift({ slot, at: new Date(slot.endsBefore.getTime() - 1) });
    slot = previousPeriod(slot);
  }
  return result;
}
