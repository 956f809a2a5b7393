import { inScope, OUTCOME_CODES, type DealStates, type PipelineScope } from './deal-states';
import { DAY_MS } from './pipeline-facts';

/** The figures of one stage (docs/analytics.md, "Stage analytics"). */
export interface StageFigures {
  stageId: string;
  label: string;
  entered: number;
  advanced: number;
  won: number;
  lost: number;
  stillOpen: number;
  /** advanced ÷ (advanced + lost) × 100; null when both are 0. */
  conversionRate: number | null;
  /** won ÷ (won + lost) × 100; null when both are 0. */
  winRateFromStage: number | null;
  /** Days from entering the stage to entering the next one; null when no deal has left it. */
  medianDaysInStage: number | null;
  averageDaysInStage: number | null;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

function percentage(part: number, whole: number): number | null {
  return whole === 0 ? null : round2((part / whole) * 100);
}

function median(sorted: readonly number[]): number {
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Per stage of `stages` (the definition's, in order), over the pipeline's deals in the snapshot
 * `states` that entered it in `[startMs, endMs)` (a deal counts once per stage, by its first entry
 * in the range): how many, how many later entered a stage of higher order (a lost stage is no
 * advance), how many are won, lost
 * or still open in that snapshot, and how long they stayed (to their next entry; deals still in
 * the stage are left out of the durations).
 */
export function computeStageAnalytics(
  states: DealStates | null,
  scope: PipelineScope,
  stages: ReadonlyArray<{
    id: string;
    label: string;
    order: number;
    isClosed: boolean;
    probability: number;
  }>,
  range: { startMs: number; endMs: number },
): StageFigures[] {
  const figures = stages.map((stage) => ({
    stageId: stage.id,
    label: stage.label,
    entered: 0,
    advanced: 0,
    won: 0,
    lost: 0,
    stillOpen: 0,
    durations: [] as number[],
  }));
  if (states) {
    const position = new Map(stages.map((stage, i) => [stage.id, i]));
    // Per index of states.stageIds: the stage's position in `stages`, −1 when it is not one.
    const at = states.stageIds.map((id) => position.get(id) ?? -1);
    // Entering a lost stage (closed, probability below 1) is no advance, whatever its order.
    const order = at.map((p) =>
      p < 0 || (stages[p].isClosed && stages[p].probability !== 1) ? -Infinity : stages[p].order,
    );
    const inPipeline = inScope(states, scope);
    const seen = new Uint8Array(stages.length);
    for (let d = 0; d < states.count; d += 1) {
      if (!inPipeline(d)) continue;
      const first = states.stageHistoryStart[d];
      const end = states.stageHistoryStart[d + 1];
      seen.fill(0);
      for (let k = first; k < end; k += 1) {
        const time = states.stageHistoryAt[k];
        const s = states.stageHistoryStage[k];
        const p = at[s];
        if (p < 0 || seen[p] === 1 || time < range.startMs || time >= range.endMs) continue;
        seen[p] = 1;
        const f = figures[p];
        f.entered += 1;
        const from = p < 0 ? -Infinity : stages[p].order;
        for (let later = k + 1; later < end; later += 1) {
          if (order[states.stageHistoryStage[later]] > from) {
            f.advanced += 1;
            break;
          }
        }
        const outcome = states.outcome[d];
        if (outcome === OUTCOME_CODES.won) f.won += 1;
        else if (outcome === OUTCOME_CODES.lost) f.lost += 1;
        else f.stillOpen += 1;
        if (k + 1 < end) f.durations.push((states.stageHistoryAt[k + 1] - time) / DAY_MS);
      }
    }
  }
  return figures.map(({ durations, ...f }) => {
    durations.sort((x, y) => x - y);
    return {
      ...f,
      conversionRate: percentage(f.advanced, f.advanced + f.lost),
      winRateFromStage: percentage(f.won, f.won + f.lost),
      medianDaysInStage: durations.length === 0 ? null : round2(median(durations)),
      averageDaysInStage:
        durations.length === 0
          ? null
          : round2(durations.reduce((sum, v) => sum + v, 0) / durations.length),
    };
  });
}
