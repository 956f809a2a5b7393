import type { AuthenticatedContext } from '../context/request-context';
import { BadUserInputError, ConflictError, NotFoundError } from '../errors';
import { PeriodSlot, PeriodUnit, periodOf, periodsEndingAt } from '../domain/period';
import { LATEST, factsKey } from '../loaders/pipeline.loaders';
import { SETTINGS_ID } from '../models/settings.model';
import { MetricDefinition, metricDefinition } from '../domain/metric-catalogue';
import { evaluateMetric } from '../domain/evaluate-metric';
import { parseMetricNames } from './metrics/select-metrics';
import { derivedFromTargets, mayReadTargetsOfAll, withheldError } from './metrics/target-access';
import { findPipeline } from './pipeline.service';

export const MAX_DURATION = 104;

export interface TimeseriesRequest {
  pipelineId: string;
  metricName: string;
  /** Periods of the configured unit, 1..104, ending with the current one. */
  duration: number;
  /** The instant whose period ends the series; default now. */
  now?: Date;
}

export interface SeriesPoint {
  /** `Q3`, `m7`, `w27`. */
  period: string;
  year: number;
  start: string;
  end: string;
  value: number | null;
}

export interface Timeseries {
  pipelineId: string;
  definition: MetricDefinition;
  unit: string;
  period: PeriodUnit;
  points: SeriesPoint[];
}

function checkDuration(duration: number): void {
  if (!Number.isInteger(duration) || duration < 1 || duration > MAX_DURATION) {
    const message = `must be an integer from 1 to ${MAX_DURATION}`;
    throw new BadUserInputError(`Invalid duration: ${message}, got ${String(duration)}`, [
      { field: 'metrics.duration', message },
    ]);
  }
}

/**
 * One metric of one pipeline over the last `duration` periods, oldest first. Each point is the
 * metric at the last committed snapshot whose `snapshotAt` lies in that period, evaluated for that
 * period; null where there is no snapshot, where the pipeline was not in it, or where the metric has
 * no value there (a division by zero, no targets for that period). Period not set, or a currency
 * metric while the currency is not set: 409. Unknown metric or bad duration: 400. A pipeline in
 * neither the latest snapshot nor any snapshot of the window: 404. A metric derived from targets
 * the caller may not all read (metrics/target-access.ts): 403.
 */
export async function getTimeseries(
  ctx: AuthenticatedContext,
  request: TimeseriesRequest,
): Promise<Timeseries> {
  const [name] = parseMetricNames([request.metricName], 'metrics.metric_name') ?? [];
  if (!name || request.metricName.includes(',')) {
    const message = 'expected one metric name';
    throw new BadUserInputError(`Invalid metric_name: ${message}, got "${request.metricName}"`, [
      { field: 'metrics.metric_name', message },
    ]);
  }
  checkDuration(request.duration);
  const definition = metricDefinition(name);
  const settings = await ctx.loaders.metricSettings.load(SETTINGS_ID);
  if (!settings.period)
    throw new ConflictError(
      'Cannot build a time series: the period is not set (POST /settings/periods)',
    );
  if (definition.requires.currency && !settings.currency) {
    throw new ConflictError(
      `Cannot compute ${name}: the currency is not set (POST /settings/currencies)`,
    );
  }
  const period = settings.period;
  const slots = periodsEndingAt(period, request.now ?? new Date(), request.duration);

  // One read for every snapshot of the window; the last one inside each period wins.
  const snapshots = await ctx.loaders.snapshotsInWindow.load({
    from: slots[0].startsAt,
    to: slots.at(-1)!.endsBefore,
  });
  const slotKey = (slot: Pick<PeriodSlot, 'year' | 'index'>) => `${slot.year}:${slot.index}`;
  const chosen = new Map<string, string>();
  for (const snapshot of snapshots)
    chosen.set(slotKey(periodOf(period, snapshot.snapshotAt)), snapshot.id);
  const snapshotIds = slots.map((slot) => chosen.get(slotKey(slot)) ?? null);
  const facts = await Promise.all(
    snapshotIds.map((id) =>
      id ? ctx.loaders.pipelineFacts.load(factsKey(id, request.pipelineId)) : Promise.resolve(null),
    ),
  );
  if (facts.every((f) => f === null)) {
    const latest = await ctx.loaders.latestSnapshot.load(LATEST);
    if (!latest || !(await findPipeline(ctx, latest.id, request.pipelineId))) {
      throw new NotFoundError(`Pipeline ${request.pipelineId} not found`);
    }
  }
  const years = [...new Set(slots.map((slot) => slot.year))];
  const targets = [];
  if (definition.requires.targets) {
    for (const loaded of await ctx.loaders.targetsByYear.loadMany(years)) {
      if (loaded instanceof Error) throw loaded;
      targets.push(...loaded);
    }
  }
  // Every period's value sums the targets of that snapshot's members: all of them must be readable.
  if (derivedFromTargets(definition)) {
    const memberIds = facts.flatMap((f) => f?.memberIds ?? []);
    if (!(await mayReadTargetsOfAll(ctx, memberIds, targets))) throw withheldError([definition]);
  }
  const env = { currency: settings.currency, period, targets };
  const points = slots.map((slot, i): SeriesPoint => {
    const f = facts[i];
    const outcome = f ? evaluateMetric(definition, f, env) : null;
    return {
      period: slot.label,
      year: slot.year,
      start: slot.start,
      end: slot.end,
      value: outcome?.kind === 'value' ? outcome.value : null,
    };
  });
  return {
    pipelineId: request.pipelineId,
    definition,
    unit: definition.unitKind === 'currency' ? settings.currency! : definition.unitKind,
    period,
    points,
  };
}
