import { PeriodSlot, PeriodUnit, periodOf } from './period';
import { MetricDefinition, MetricName } from './metric-catalogue';
import { DAY_MS, PipelineFacts } from './pipeline-facts';

/** What read time adds to the facts: the account settings and the targets that may apply. */
export interface MetricEnvironment {
  currency: string | null;
  period: PeriodUnit | null;
  /** Targets of (at least) the pipeline's members; others are ignored. */
  targets: ReadonlyArray<{ memberId: string; year: number; period: string; amounts: number[] }>;
}

/**
 * A computed metric, or why it cannot be computed yet. `value` is null when the formula divides by
 * zero (no closed deal in the period, a target already met...): the metric exists but has no value.
 */
export type MetricOutcome =
  | { kind: 'value'; definition: MetricDefinition; value: number | null; unit: string }
  | { kind: 'unavailable'; definition: MetricDefinition; reason: string };

/** Sums of the day buckets inside one period. */
interface PeriodTotals {
  wonCount: number;
  wonAmount: number;
  lostCount: number;
  cycleCount: number;
  cycleDays: number;
  openAmount: number;
}

function round2(value: number): number {
  return Math.round((value + Number.EPSILON) * 100) / 100;
}

function periodTotals(facts: PipelineFacts, slot: PeriodSlot): PeriodTotals {
  const yearStart = Date.UTC(facts.year, 0, 1);
  const from = Math.round((slot.startsAt.getTime() - yearStart) / DAY_MS);
  const to = Math.round((slot.endsBefore.getTime() - yearStart) / DAY_MS);
  const totals: PeriodTotals = {
    wonCount: 0,
    wonAmount: 0,
    lostCount: 0,
    cycleCount: 0,
    cycleDays: 0,
    openAmount: 0,
  };
  for (const bucket of facts.days) {
    if (bucket.d < from || bucket.d >= to) continue;
    totals.wonCount += bucket.wonCount;
    totals.wonAmount += bucket.wonAmount;
    totals.lostCount += bucket.lostCount;
    totals.cycleCount += bucket.cycleCount;
    totals.cycleDays += bucket.cycleDays;
    totals.openAmount += bucket.openAmount;
  }
  return totals;
}

/**
 * Sum of the targets of the pipeline's members for `slot`, or null when none of them has targets
 * for that year in the configured period unit.
 */
function targetSum(facts: PipelineFacts, env: MetricEnvironment, slot: PeriodSlot): number | null {
  const members = new Set(facts.memberIds);
  let found = false;
  let sum = 0;
  for (const target of env.targets) {
    if (!members.has(target.memberId) || target.year !== slot.year || target.period !== slot.unit)
      continue;
    const amount = target.amounts[slot.index - 1];
    if (typeof amount !== 'number') continue;
    found = true;
    sum += amount;
  }
  return found ? sum : null;
}

function unavailableReason(
  definition: MetricDefinition,
  facts: PipelineFacts,
  env: MetricEnvironment,
): string | null {
  if (definition.requires.currency && !env.currency)
    return 'the currency is not set (POST /settings/currencies)';
  if (definition.requires.period && !env.period)
    return 'the period is not set (POST /settings/periods)';
  if (definition.requires.targets && env.period) {
    const slot = periodOf(env.period, facts.snapshotAt);
    if (targetSum(facts, env, slot) === null) {
      return `no targets are set for the pipeline's members for ${slot.year} ${slot.label}`;
    }
  }
  return null;
}

function divide(numerator: number, denominator: number, scale = 1): number | null {
  return denominator > 0 ? round2((numerator / denominator) * scale) : null;
}

/** Evaluates one metric of the catalogue on one pipeline's facts. Pure: no I/O. */
export function evaluateMetric(
  definition: MetricDefinition,
  facts: PipelineFacts,
  env: MetricEnvironment,
): MetricOutcome {
  const reason = unavailableReason(definition, facts, env);
  if (reason !== null) return { kind: 'unavailable', definition, reason };
  const unit = definition.unitKind === 'currency' ? env.currency! : definition.unitKind;
  const value = (v: number | null): MetricOutcome => ({
    kind: 'value',
    definition,
    value: v,
    unit,
  });
  const name: MetricName = definition.apiCodename;
  switch (name) {
    case 'pipeline_value':
      return value(round2(facts.openAmount));
    case 'weighted_pipeline_value':
      return value(round2(facts.openWeighted));
    case 'open_opportunities':
      return value(facts.openCount);
    default:
      break;
  }
  // Every remaining metric is about the configured period containing the snapshot.
  const slot = periodOf(env.period!, facts.snapshotAt);
  const totals = periodTotals(facts, slot);
  switch (name) {
    case 'win_rate':
      return value(divide(totals.wonCount, totals.wonCount + totals.lostCount, 100));
    case 'average_deal_size':
      return value(divide(totals.wonAmount, totals.wonCount));
    case 'average_sales_cycle':
      return value(divide(totals.cycleDays, totals.cycleCount));
    case 'quota_attainment':
      return value(divide(totals.wonAmount, targetSum(facts, env, slot)!, 100));
    case 'pipeline_coverage':
      // Targets already met (nothing left to cover) divide by zero or less: no value.
      return value(divide(totals.openAmount, targetSum(facts, env, slot)! - totals.wonAmount, 100));
  }
}
