/**
 * A deal's history as each stored version carries it (docs/analytics.md, "Stage history"): every
 * entry into a stage with its time, and every close date it had since it first appeared. Both are
 * rebuilt at each import from the previous version's history and the deal's new state, so a
 * version holds the whole history up to its snapshot and retention keeps it with the version.
 */

/** One entry of a deal into a stage. */
export interface StageEntry {
  stageId: string;
  at: Date;
}

/** The close date a deal had from `at` on (null: none); the first one is when it first appeared. */
export interface CloseChange {
  at: Date;
  closedAt: Date | null;
}

/** Entries kept per deal: the most recent ones when a deal moves more often than this. */
export const MAX_STAGE_ENTRIES = 100;

/** Close date changes kept per deal: the most recent ones. */
export const MAX_CLOSE_CHANGES = 100;

function sameTime(a: Date | null, b: Date | null): boolean {
  return (a?.getTime() ?? null) === (b?.getTime() ?? null);
}

/**
 * The stage history after an import at `at` that finds the deal in `stageId`: the previous
 * history, plus the CRM's stage entry times (`crm`, ordered by time then stage order: HubSpot's
 * `hs_v2_date_entered_<stage>`, else `hs_date_entered_<stage>`) up to `at`, ordered by time; two
 * consecutive entries into the same stage are one stay, dated by the earlier; and when the latest
 * entry is not into the deal's stage now, an entry into it at `at`: the first snapshot that shows
 * the deal there.
 */
export function stageHistoryAfter(
  previous: readonly StageEntry[] | null | undefined,
  crm: readonly StageEntry[],
  stageId: string,
  at: Date,
): StageEntry[] {
  const known = previous ?? [];
  const merged: StageEntry[] = [...known];
  for (const entry of crm) {
    if (entry.at.getTime() > at.getTime()) continue;
    if (!known.some((e) => e.stageId === entry.stageId && sameTime(e.at, entry.at)))
      merged.push(entry);
  }
  // Stable: ties keep the previous history first, then the CRM's order (stage order).
  merged.sort((a, b) => a.at.getTime() - b.at.getTime());
  const history: StageEntry[] = [];
  for (const entry of merged) if (history.at(-1)?.stageId !== entry.stageId) history.push(entry);
  const last = history.at(-1);
  if (!last || last.stageId !== stageId)
    history.push({ stageId, at: last && last.at.getTime() > at.getTime() ? last.at : at });
  return history.slice(-MAX_STAGE_ENTRIES);
}

/**
 * The close-date history after an import at `at` that finds the deal with `closedAt`: the
 * previous history with a change at `at` when the close date differs from its latest one; a deal
 * with none starts it.
 */
export function closeHistoryAfter(
  previous: readonly CloseChange[] | null | undefined,
  closedAt: Date | null,
  at: Date,
): CloseChange[] {
  const history = [...(previous ?? [])];
  const last = history.at(-1);
  if (!last || !sameTime(last.closedAt, closedAt)) history.push({ at, closedAt });
  return history.slice(-MAX_CLOSE_CHANGES);
}

/** Whether two histories are the same: an import keeps a deal's version only then. */
export function sameStageHistory(a: readonly StageEntry[], b: readonly StageEntry[]): boolean {
  return (
    a.length === b.length &&
    a.every((e, i) => e.stageId === b[i].stageId && e.at.getTime() === b[i].at.getTime())
  );
}

export function sameCloseHistory(a: readonly CloseChange[], b: readonly CloseChange[]): boolean {
  return (
    a.length === b.length &&
    a.every((e, i) => e.at.getTime() === b[i].at.getTime() && sameTime(e.closedAt, b[i].closedAt))
  );
}
