import { PERIOD_UNITS, type PeriodUnit, periodOf } from './period';

const DAY_MS = 86_400_000;

/**
 * SNAPSHOT_RETENTION_DAYS when unset: two weeks of every snapshot, then the one per period that
 * time series read. Two weeks keep a daily-synced database within three times its first day's
 * size after two months (docs/performance.md, bench:history); a month would hold nearly four.
 */
export const DEFAULT_SNAPSHOT_RETENTION_DAYS = 14;

/** The most SNAPSHOT_RETENTION_DAYS accepts (a hundred years: in effect, keep everything). */
export const MAX_SNAPSHOT_RETENTION_DAYS = 36_500;

/** What the policy knows of a committed snapshot. */
export interface RetainedSnapshot {
  id: string;
  snapshotAt: Date;
  /** Position in the order snapshots were written (the opportunity versions' spans). */
  seq: number;
  /** The demo company's generated snapshots, which are never removed. */
  demo: boolean;
}

export interface RetentionPolicy {
  /** Snapshots younger than this many days (before the latest one's date) are all kept. */
  days: number;
  /**
   * The period units whose last snapshot of each period is kept: the account's unit, which time
   * series read; every unit while none is set, since any may be chosen later.
   */
  units: readonly PeriodUnit[];
}

/** The units whose period ends are kept when the account's period is `period` (null: not set). */
export function retainedUnits(period: PeriodUnit | null): readonly PeriodUnit[] {
  return period ? [period] : PERIOD_UNITS;
}

/** Orders snapshots as time series read them: by `snapshotAt`, then id. */
function later(a: RetainedSnapshot, b: RetainedSnapshot): boolean {
  const d = a.snapshotAt.getTime() - b.snapshotAt.getTime();
  return d > 0 || (d === 0 && a.id > b.id);
}

/**
 * The ids of the snapshots to keep (docs/importing.md, "Snapshot retention"): every one dated less
 * than `days` days before the latest; the last one of each period of `units` (a time series reads
 * exactly that one for each period, so every series answers the same after the others are gone);
 * the latest written (highest seq: the next import compares with its versions); and the demo
 * company's. Every other snapshot may be removed.
 */
export function snapshotsToKeep(
  snapshots: readonly RetainedSnapshot[],
  policy: RetentionPolicy,
): Set<string> {
  const keep = new Set<string>();
  if (snapshots.length === 0) return keep;
  let latestAt = -Infinity;
  let lastWritten = snapshots[0];
  for (const s of snapshots) {
    latestAt = Math.max(latestAt, s.snapshotAt.getTime());
    if (s.seq > lastWritten.seq) lastWritten = s;
  }
  keep.add(lastWritten.id);
  const windowStart = latestAt - policy.days * DAY_MS;
  const lastOfPeriod = new Map<string, RetainedSnapshot>();
  for (const s of snapshots) {
    if (s.demo || s.snapshotAt.getTime() > windowStart) keep.add(s.id);
    for (const unit of policy.units) {
      const slot = periodOf(unit, s.snapshotAt);
      const key = `${unit}:${slot.year}:${slot.index}`;
      const current = lastOfPeriod.get(key);
      if (!current || later(s, current)) lastOfPeriod.set(key, s);
    }
  }
  for (const s of lastOfPeriod.values()) keep.add(s.id);
  return keep;
}
