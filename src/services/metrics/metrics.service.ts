import type { AuthenticatedContext } from '../../context/request-context';
import { periodYearOf } from '../../domain/period';
import { factsKey } from '../../loaders/pipeline.loaders';
import { SETTINGS_ID } from '../../models/settings.model';
import { getPipeline, removedByRetention } from '../pipeline.service';
import type { PipelineView, SnapshotView } from '../../domain/snapshot-views';
import { METRIC_CATALOGUE, MetricName, metricDefinition } from '../../domain/metric-catalogue';
import type { MetricEnvironment } from '../../domain/evaluate-metric';
import type { PipelineFacts } from '../../domain/pipeline-facts';
import type { MetricSelection } from '../../domain/metric-selection';
import { parseMetricNames, selectMetrics, withhold } from './select-metrics';
import { derivedFromTargets, mayReadTargetsOfAll, withheldError } from './target-access';

export interface PipelineMetricsRequest {
  pipelineId: string;
  /** API names, possibly comma-joined; absent or empty: all metrics. */
  metrics?: readonly string[];
  /** Default: the latest committed snapshot. */
  snapshotId?: string | null;
}

/**
 * The metrics of one pipeline. Unknown metric name: 400 (checked first, before any read); unknown
 * pipeline or snapshot: 404; a target-derived metric the caller may not see asked for by name: 403
 * (before 409, whose reason would tell whether targets exist); a metric asked for by name that
 * cannot be computed yet: 409.
 */
export async function getPipelineMetrics(
  ctx: AuthenticatedContext,
  request: PipelineMetricsRequest,
): Promise<{ pipeline: PipelineView; selection: MetricSelection }> {
  const names = request.metrics === undefined ? undefined : parseMetricNames(request.metrics);
  const pipeline = await getPipeline(ctx, request.pipelineId, request.snapshotId);
  return { pipeline, selection: await metricsOf(ctx, pipeline, names) };
}

/**
 * Facts of a pipeline read through the loaders. Their absence is a broken import, not a client
 * error, unless retention removed the snapshot after the request found it: then a 404 says so.
 */
export async function factsOf(
  ctx: AuthenticatedContext,
  snapshotId: string,
  pipelineId: string,
): Promise<PipelineFacts> {
  let facts: PipelineFacts | null;
  try {
    facts = await ctx.loaders.pipelineFacts.load(factsKey(snapshotId, pipelineId));
  } catch (error) {
    throw (await removedByRetention(ctx, snapshotId)) ?? error;
  }
  if (!facts)
    throw (
      (await removedByRetention(ctx, snapshotId)) ??
      new Error(`pipeline facts missing for ${pipelineId} in committed snapshot ${snapshotId}`)
    );
  return facts;
}

/** Settings and the targets of the year the snapshot's period lies in, both read once per request. */
export async function metricEnvironment(
  ctx: AuthenticatedContext,
  snapshot: Pick<SnapshotView, 'snapshotAt'>,
): Promise<MetricEnvironment> {
  const settings = await ctx.loaders.metricSettings.load(SETTINGS_ID);
  const targets = settings.period
    ? await ctx.loaders.targetsByYear.load(periodYearOf(snapshot.snapshotAt))
    : [];
  return { currency: settings.currency, period: settings.period, targets };
}

/**
 * Evaluates metrics (all when `names` is undefined) on a pipeline already resolved. Metrics derived
 * from targets the caller may not all read are withheld: left out of an unfiltered answer (and
 * named in `withheld`), a 403 when asked for by name.
 */
export async function metricsOf(
  ctx: AuthenticatedContext,
  pipeline: PipelineView,
  names?: readonly MetricName[],
): Promise<MetricSelection> {
  const facts = await factsOf(ctx, pipeline.snapshotId, pipeline.id);
  const env = await metricEnvironment(ctx, facts);
  const visible =
    !askedDerivedFromTargets(names) ||
    (await mayReadTargetsOfAll(ctx, facts.memberIds, env.targets));
  if (names) {
    if (!visible) throw withheldError(names.map(metricDefinition).filter(derivedFromTargets));
    return pick(allMetrics(ctx, facts, env), names) ?? selectMetrics(facts, env, names);
  }
  const selection = allMetrics(ctx, facts, env);
  return visible ? selection : withhold(selection, derivedFromTargets);
}

function askedDerivedFromTargets(names: readonly MetricName[] | undefined): boolean {
  return (names ? names.map(metricDefinition) : METRIC_CATALOGUE).some(derivedFromTargets);
}

/**
 * The named metrics out of an evaluation of all of them, in the order named; undefined when one
 * of them could not be computed (selectMetrics then tells which and why). Evaluation depends on
 * the facts and the environment alone, so this is the very selection selectMetrics would make.
 */
function pick(all: MetricSelection, names: readonly MetricName[]): MetricSelection | undefined {
  const values: MetricSelection['values'] = [];
  for (const name of names) {
    const value = all.values.find((v) => v.definition.apiCodename === name);
    if (value === undefined) return undefined;
    values.push(value);
  }
  return { values, omitted: [], withheld: [] };
}

/** Every metric of the facts under `env`, evaluated once per facts and environment (MetricsMemo). */
function allMetrics(
  ctx: AuthenticatedContext,
  facts: PipelineFacts,
  env: MetricEnvironment,
): MetricSelection {
  const kept = ctx.access.metrics.get(facts, env);
  if (kept) return kept;
  const selection = selectMetrics(facts, env);
  ctx.access.metrics.set(facts, env, selection);
  return selection;
}
