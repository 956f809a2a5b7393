/**
 * Settings-independent aggregates of one pipeline in one snapshot, precomputed when the snapshot is
 * imported so that no metric read ever scans opportunities. Currency, period and targets are applied
 * at read time, so changing them later is reflected without a re-import.
 */

import type { ForecastDay } from './forecast-days';

/** Totals of one close day (UTC) of the snapshot's year. Zero fields are stored as 0. */
export interface DayBucket {
  /** 0-based day of the snapshot's year (0 = 1 January). */
  d: number;
  /** Opportunities won (closed, probability 1) that closed this day. */
  wonCount: number;
  wonAmount: number;
  /** Opportunities lost (closed, any other probability) that closed this day. */
  lostCount: number;
  /** Won opportunities of this day that have a creation date, and the sum of their cycle lengths in days. */
  cycleCount: number;
  cycleDays: number;
  /** Amount of open opportunities whose (expected) close date is this day. */
  openAmount: number;
}

export interface PipelineFacts {
  snapshotId: string;
  pipelineId: string;
  definitionId: string;
  kind: 'complete' | 'team' | 'member';
  teamId: string | null;
  memberId: string | null;
  snapshotAt: Date;
  /** UTC year of `snapshotAt`: every period containing the snapshot lies inside it. */
  year: number;
  openCount: number;
  openAmount: number;
  openWeighted: number;
  /**
   * The pipeline's members, whose targets quota_attainment and pipeline_coverage use: the members
   * owning at least one opportunity of this pipeline in this snapshot (docs/metrics.md).
   */
  memberIds: string[];
  /** Only days with activity, sorted by `d`; at most 366. */
  days: DayBucket[];
  /**
   * Won and open amounts by close day and forecast category, every year (domain/forecast-days.ts);
   * undefined on facts built before forecasts existed.
   */
  forecastDays?: ForecastDay[];
}

/** The fields of an opportunity the facts need. */
export interface FactsOpportunity {
  stageId: string;
  amount: number;
  memberId: string | null;
  createdAt: Date | null;
  closedAt: Date | null;
  outcome: 'open' | 'won' | 'lost';
}

export const DAY_MS = 86_400_000;

/** 0-based day of `year` for `date`, or null when the date lies in another year. */
export function dayOfYear(date: Date, year: number): number | null {
  if (date.getUTCFullYear() !== year) return null;
  return Math.floor((date.getTime() - Date.UTC(year, 0, 1)) / DAY_MS);
}

/** Accumulates the facts of one pipeline, one opportunity at a time (the import streams them). */
export class PipelineFactsAccumulator {
  private openCount = 0;
  private openAmount = 0;
  private openWeighted = 0;
  private readonly members = new Set<string>();
  private readonly days = new Map<number, DayBucket>();

  constructor(private readonly year: number) {}

  /** `probability` is the probability of the opportunity's stage (0..1). */
  add(opportunity: FactsOpportunity, probability: number): void {
    const amount = Number.isFinite(opportunity.amount) ? opportunity.amount : 0;
    if (opportunity.memberId) this.members.add(opportunity.memberId);
    const day = opportunity.closedAt ? dayOfYear(opportunity.closedAt, this.year) : null;
    switch (opportunity.outcome) {
      case 'open':
        this.openCount += 1;
        this.openAmount += amount;
        this.openWeighted += amount * probability;
        if (day !== null) this.bucket(day).openAmount += amount;
        return;
      case 'won': {
        if (day === null) return;
        const bucket = this.bucket(day);
        bucket.wonCount += 1;
        bucket.wonAmount += amount;
        if (opportunity.createdAt && opportunity.closedAt) {
          // A close before the creation is a CRM data error; it counts as a zero-day cycle
          // rather than pulling the mean below zero.
          const days = Math.max(
            0,
            (opportunity.closedAt.getTime() - opportunity.createdAt.getTime()) / DAY_MS,
          );
          bucket.cycleCount += 1;
          bucket.cycleDays += days;
        }
        return;
      }
      case 'lost':
        if (day !== null) this.bucket(day).lostCount += 1;
        return;
    }
  }

  private bucket(d: number): DayBucket {
    let bucket = this.days.get(d);
    if (!bucket) {
      bucket = {
        d,
        wonCount: 0,
        wonAmount: 0,
        lostCount: 0,
        cycleCount: 0,
        cycleDays: 0,
        openAmount: 0,
      };
      this.days.set(d, bucket);
    }
    return bucket;
  }

  result(): Pick<
    PipelineFacts,
    'openCount' | 'openAmount' | 'openWeighted' | 'memberIds' | 'days'
  > {
    return {
      openCount: this.openCount,
      openAmount: this.openAmount,
      openWeighted: this.openWeighted,
      memberIds: [...this.members].sort(),
      days: [...this.days.values()].sort((a, b) => a.d - b.d),
    };
  }
}
