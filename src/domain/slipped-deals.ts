import { inScope, OUTCOME_CODES, type DealStates, type PipelineScope } from './deal-states';
import { DAY_MS } from './pipeline-facts';

/** An open deal whose close date moved later (docs/analytics.md, "Slipped deals"). */
export interface SlippedDeal {
  /** The deal's index in the `to` snapshot's states. */
  index: number;
  dealId: string;
  timesPushed: number;
  /** The close date at `from` (or when the deal first appeared after it), ms; NaN: none. */
  closeFirst: number;
  /** The close date at `to`, ms; NaN: none. */
  closeNow: number;
  /** Whole UTC days from the first close date to the current one; null when either is missing. */
  daysPushed: number | null;
}

const dayOf = (ms: number) => Math.floor(ms / DAY_MS);

/**
 * The pipeline's deals open in the snapshot `to` whose close date was moved later at least once
 * after `fromMs` (the `from` snapshot's time) up to it, read from each deal's close-date history:
 * the most days pushed first (missing ones last), then by deal id.
 */
export function computeSlippedDeals(
  to: DealStates | null,
  scope: PipelineScope,
  fromMs: number,
): SlippedDeal[] {
  if (!to) return [];
  const inPipeline = inScope(to, scope);
  const slipped: SlippedDeal[] = [];
  for (let d = 0; d < to.count; d += 1) {
    if (to.outcome[d] !== OUTCOME_CODES.open || !inPipeline(d)) continue;
    const first = to.closeHistoryStart[d];
    const end = to.closeHistoryStart[d + 1];
    let pushes = 0;
    let closeFirst = end > first ? to.closeHistoryClose[first] : NaN;
    for (let k = first; k < end; k += 1) {
      const at = to.closeHistoryAt[k];
      if (at <= fromMs) {
        closeFirst = to.closeHistoryClose[k];
        continue;
      }
      if (k > first && to.closeHistoryClose[k] > to.closeHistoryClose[k - 1]) pushes += 1;
    }
    if (pushes === 0) continue;
    const closeNow = to.close[d];
    slipped.push({
      index: d,
      dealId: to.ids[d],
      timesPushed: pushes,
      closeFirst,
      closeNow,
      daysPushed:
        Number.isNaN(closeFirst) || Number.isNaN(closeNow)
          ? null
          : dayOf(closeNow) - dayOf(closeFirst),
    });
  }
  return slipped.sort(
    (x, y) =>
      (y.daysPushed ?? -Infinity) - (x.daysPushed ?? -Infinity) ||
      (x.dealId < y.dealId ? -1 : x.dealId > y.dealId ? 1 : 0),
  );
}
