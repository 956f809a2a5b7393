import type { ForecastCategory } from './forecast-category';
import type { Outcome } from '../models/opportunity.model';

/**
 * What a forecast sums, per close day, precomputed with a pipeline's facts when a snapshot is
 * imported: the amount won that day and the open amounts expected to close that day, by forecast
 * category. Days are counted from 1 January 1970 (UTC), so a forecast may ask for any period, of
 * any year, whatever the snapshot's date. Lost deals and open deals the CRM omits from the
 * forecast add nothing.
 */
export interface ForecastDay {
  /** Days since 1970-01-01 (UTC) of the close date. */
  day: number;
  won: number;
  commit: number;
  bestCase: number;
  pipeline: number;
}

/** Sums of the forecast days inside one period. */
export interface ForecastSums {
  closed: number;
  commit: number;
  bestCase: number;
  pipeline: number;
}

const DAY_MS = 86_400_000;

/** The day number of `date`. */
export function epochDay(date: Date): number {
  return Math.floor(date.getTime() / DAY_MS);
}

/** The fields of an opportunity the forecast days need. */
export interface ForecastOpportunity {
  amount: number;
  closedAt: Date | null;
  outcome: Outcome;
  /** Null on versions stored before categories existed: such a deal's open amount counts nowhere. */
  forecastCategory?: ForecastCategory | null;
}

/** Accumulates one pipeline's forecast days, one opportunity at a time. */
export class ForecastDaysAccumulator {
  private readonly days = new Map<number, ForecastDay>();

  add(opportunity: ForecastOpportunity): void {
    if (!opportunity.closedAt || opportunity.outcome === 'lost') return;
    const amount = Number.isFinite(opportunity.amount) ? opportunity.amount : 0;
    if (amount === 0) return;
    const field = fieldOf(opportunity);
    if (field === null) return;
    const day = epochDay(opportunity.closedAt);
    let bucket = this.days.get(day);
    if (!bucket) {
      bucket = { day, won: 0, commit: 0, bestCase: 0, pipeline: 0 };
      this.days.set(day, bucket);
    }
    bucket[field] += amount;
  }

  /** Days with an amount, sorted by day. */
  result(): ForecastDay[] {
    return [...this.days.values()].sort((a, b) => a.day - b.day);
  }
}

function fieldOf(o: ForecastOpportunity): 'won' | 'commit' | 'bestCase' | 'pipeline' | null {
  if (o.outcome === 'won') return 'won';
  switch (o.forecastCategory) {
    case 'commit':
      return 'commit';
    case 'best_case':
      return 'bestCase';
    case 'pipeline':
      return 'pipeline';
    default:
      return null;
  }
}

/** The first index of `days` (sorted) whose day is at least `day`. */
function lowerBound(days: readonly ForecastDay[], day: number): number {
  let lo = 0;
  let hi = days.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (days[mid].day < day) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Adds to `sums` the days of `days` (sorted) from `from` (inclusive) to `to` (exclusive). */
export function addForecastDays(
  sums: ForecastSums,
  days: readonly ForecastDay[],
  from: number,
  to: number,
): ForecastSums {
  for (let i = lowerBound(days, from); i < days.length && days[i].day < to; i += 1) {
    const d = days[i];
    sums.closed += d.won;
    sums.commit += d.commit;
    sums.bestCase += d.bestCase;
    sums.pipeline += d.pipeline;
  }
  return sums;
}

export function emptySums(): ForecastSums {
  return { closed: 0, commit: 0, bestCase: 0, pipeline: 0 };
}
