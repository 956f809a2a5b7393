import { periodOf, type PeriodUnit } from '../../src/domain/period';
import {
  retainedUnits,
  snapshotsToKeep,
  type RetainedSnapshot,
} from '../../src/domain/snapshot-retention';

const DAY_MS = 86_400_000;

let seq = 0;
function snapshot(
  id: string,
  at: string,
  options: { seq?: number; demo?: boolean } = {},
): RetainedSnapshot {
  seq += 1;
  return { id, snapshotAt: new Date(at), seq: options.seq ?? seq, demo: options.demo ?? false };
}

/** One snapshot a day at 23:59:59 UTC from `first` (YYYY-MM-DD), `count` days. */
function daily(first: string, count: number): RetainedSnapshot[] {
  const start = Date.parse(`${first}T23:59:59Z`);
  return Array.from({ length: count }, (_, i) =>
    snapshot(`d${i}`, new Date(start + i * DAY_MS).toISOString()),
  );
}

const kept = (snapshots: RetainedSnapshot[], days: number, units: readonly PeriodUnit[]) =>
  [...snapshotsToKeep(snapshots, { days, units })].sort();

/** What a time series reads: for each period, the last snapshot by (snapshotAt, id). */
function lastOfEachPeriod(snapshots: RetainedSnapshot[], unit: PeriodUnit): Map<string, string> {
  const sorted = [...snapshots].sort(
    (a, b) => a.snapshotAt.getTime() - b.snapshotAt.getTime() || (a.id < b.id ? -1 : 1),
  );
  const chosen = new Map<string, string>();
  for (const s of sorted) {
    const slot = periodOf(unit, s.snapshotAt);
    chosen.set(`${slot.year}:${slot.index}`, s.id);
  }
  return chosen;
}

describe('snapshotsToKeep', () => {
  it('keeps nothing of nothing', () => {
    expect(kept([], 30, ['weekly'])).toEqual([]);
  });

  it('keeps every snapshot dated less than N days before the latest, and the last one of each older period', () => {
    // 1 March to 9 April 2026, monthly: the window holds 1–9 April (9 days); March keeps its last.
    const snapshots = daily('2026-03-01', 40);
    const ids = kept(snapshots, 9, ['monthly']);
    const window = snapshots
      .filter((s) => s.snapshotAt.getTime() > snapshots[39].snapshotAt.getTime() - 9 * DAY_MS)
      .map((s) => s.id);
    expect(window).toHaveLength(9);
    expect(ids).toEqual([...window, 'd30'].sort()); // d30 = 31 March
  });

  it('counts the window in days before the latest snapshot, not before now, and excludes exactly N days', () => {
    const snapshots = [
      snapshot('old', '2026-01-01T12:00:00Z'),
      snapshot('edge', '2026-01-11T12:00:00Z'),
      snapshot('inside', '2026-01-11T12:00:01Z'),
      snapshot('latest', '2026-01-21T12:00:00Z'),
    ];
    // quarterly: all four are in Q1, so only the window and the latest count
    expect(kept(snapshots, 10, ['quarterly'])).toEqual(['inside', 'latest']);
    expect(kept(snapshots, 11, ['quarterly'])).toEqual(['edge', 'inside', 'latest']);
  });

  it('keeps the last snapshot of each period by snapshotAt then id, as time series pick it', () => {
    const snapshots = [
      snapshot('a', '2026-02-10T00:00:00Z'),
      snapshot('c', '2026-02-20T00:00:00Z'),
      snapshot('b', '2026-02-20T00:00:00Z'),
      snapshot('latest', '2026-06-01T00:00:00Z'),
    ];
    expect(kept(snapshots, 1, ['monthly'])).toEqual(['c', 'latest']);
  });

  it('keeps the latest written (highest seq) even when it is not the latest dated', () => {
    const snapshots = [
      snapshot('written-last', '2026-01-05T00:00:00Z', { seq: 9 }),
      snapshot('same-month', '2026-01-20T00:00:00Z', { seq: 2 }),
      snapshot('latest', '2026-03-01T00:00:00Z', { seq: 3 }),
    ];
    expect(kept(snapshots, 1, ['monthly'])).toEqual(['latest', 'same-month', 'written-last']);
  });

  it("never removes the demo company's snapshots", () => {
    const snapshots = [
      snapshot('demo-1', '2025-01-10T00:00:00Z', { demo: true }),
      snapshot('demo-2', '2025-01-20T00:00:00Z', { demo: true }),
      snapshot('real', '2026-03-01T00:00:00Z'),
    ];
    expect(kept(snapshots, 1, ['quarterly'])).toEqual(['demo-1', 'demo-2', 'real']);
  });

  it('keeps the period ends of every unit while none is set', () => {
    expect(retainedUnits(null)).toEqual(['weekly', 'monthly', 'quarterly']);
    expect(retainedUnits('monthly')).toEqual(['monthly']);
    // 28 January (a Wednesday, w4 ends 28 January) and 31 January: the last of w4 and of January
    const snapshots = [
      snapshot('w4-end', '2026-01-28T12:00:00Z'),
      snapshot('jan-end', '2026-01-31T12:00:00Z'),
      snapshot('latest', '2026-04-15T00:00:00Z'),
    ];
    expect(kept(snapshots, 1, retainedUnits(null))).toEqual(['jan-end', 'latest', 'w4-end']);
    expect(kept(snapshots, 1, retainedUnits('monthly'))).toEqual(['jan-end', 'latest']);
  });

  it('keeps, over a year of daily snapshots, what every time series of the unit reads and a bounded rest', () => {
    const snapshots = daily('2025-01-01', 400);
    for (const unit of ['weekly', 'monthly', 'quarterly'] as const) {
      const ids = new Set(kept(snapshots, 30, [unit]));
      for (const id of lastOfEachPeriod(snapshots, unit).values()) expect(ids.has(id)).toBe(true);
      const periods = lastOfEachPeriod(snapshots, unit).size;
      expect(ids.size).toBeLessThanOrEqual(30 + periods);
      // what is kept reads the same series as everything did
      expect(
        lastOfEachPeriod(
          snapshots.filter((s) => ids.has(s.id)),
          unit,
        ),
      ).toEqual(lastOfEachPeriod(snapshots, unit));
    }
  });

  it("keeps a backfill's snapshots at period ends", () => {
    const ends = [
      '2025-03-31T23:59:59.999Z',
      '2025-06-30T23:59:59.999Z',
      '2025-09-30T23:59:59.999Z',
      '2025-12-31T23:59:59.999Z',
    ];
    const snapshots = [
      ...ends.map((at, i) => snapshot(`q${i + 1}`, at)),
      snapshot('current', '2026-02-10T09:00:00Z'),
    ];
    expect(kept(snapshots, 30, ['quarterly'])).toEqual(['current', 'q1', 'q2', 'q3', 'q4']);
    expect(kept(snapshots, 30, ['monthly'])).toEqual(['current', 'q1', 'q2', 'q3', 'q4']);
  });
});
