import type { RequestContext } from '../../context/request-context';
import { periodYearOf } from '../../domain/period';
import { factsKey } from '../../loaders/pipeline.loaders';
import { SETTINGS_ID } from '../../models/settings.model';
import { getPipeline, removedByRetention } from '../pipeline.service';
import type { PipelineView, SnapshotView } from '../../domain/snapshot-views';
import { METRIC_CATALOGUE, MetricName, metricDefinition } from './catalogue';
import { MetricEnvironment } from './evaluate';
import { PipelineFacts } from './facts';
import { MetricSelection, parseMetricNames, selectMetrics, withhold } from './select-metrics';
import {
  derivedFromTargets,
  mayReadTargetsOfAll,
  mayReadTargetsOfAllNow,
  withheldError,
} from './target-access';
import {
  factsNow,
  metricSettingsNow,
  pipelineNow,
  snapshotNow,
  targetsOfYearNow,
} from '../../loaders/in-memory';

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
  ctx: RequestContext,
  request: PipelineMetricsRequest,
): Promise<{ pipeline: PipelineView; selection: MetricSelection }> {
  const names = metricNamesOf(ctx, request.metrics);
  const pipeline = await getPipeline(ctx, request.pipelineId, request.snapshotId);
  return { pipeline, selection: await metricsOf(ctx, pipeline, names) };
}

/** parseMetricNames, each list parsed once per app (DataAccess.metricNames; names are never changed once parsed). */
function metricNamesOf(
  ctx: RequestContext,
  raw: readonly string[] | undefined,
): MetricName[] | undefined {
  if (raw === undefined) return undefined;
  const memo = ctx.access.metricNames as WeakMap<readonly string[], MetricName[] | undefined>;
  if (memo.has(raw)) return memo.get(raw);
  const names = parseMetricNames(raw);
  memo.set(raw, names);
  return names;
}

/**
 * Facts of a pipeline read through the loaders. Their absence is a broken import, not a client
 * error, unless retention removed the snapshot after the request found it: then a 404 says so.
 */
export async function factsOf(
  ctx: RequestContext,
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
  ctx: RequestContext,
  snapshot: Pick<SnapshotView, 'snapshotAt'>,
): Promise<MetricEnvironment> {
  const settings = await ctx.loaders.metricSettings.load(SETTINGS_ID);
  const targets = settings.period
    ? await ctx.loaders.targetsByYear.load(periodYearOf(snapshot.snapshotAt))
    : [];
  return { currency: settings.currency, period: settings.period, targets };
}

/**
 * All metrics of a facts document as evaluated lately, each with its currency, period and targets
 * array. Facts are immutable and the targets array is the app's cached one (DataAccess): a new
 * array comes whenever the targets' version moves, so an entry is valid exactly while all three
 * are the ones it names. A few are kept per facts object (the settings may go back and forth).
 * Kept in DataAccess.metricsMemo, by facts object.
 */
interface AllMetricsMemo {
  currency: string | null;
  period: string | null;
  targets: unknown;
  selection: MetricSelection;
}

/** Evaluations kept per facts object. */
const MEMOS_PER_FACTS = 4;

/**
 * Evaluates metrics (all when `names` is undefined) on a pipeline already resolved. Metrics derived
 * from targets the caller may not all read are withheld: left out of an unfiltered answer (and
 * named in `withheld`), a 403 when asked for by name.
 */
export async function metricsOf(
  ctx: RequestContext,
  pipeline: PipelineView,
  names?: readonly MetricName[],
): Promise<MetricSelection> {
  const facts = await factsOf(ctx, pipeline.snapshotId, pipeline.id);
  const env = await metricEnvironment(ctx, facts);
  const visible =
    !askedDerivedFromTargets(names) ||
    (await mayReadTargetsOfAll(ctx, facts.memberIds, env.targets));
  return selectionOf(ctx, facts, env, names, visible);
}

/**
 * getPipelineMetrics without waiting, when everything it reads is in the app's caches already
 * (loaders/in-memory.ts): the same reads from the same caches, so the same answer. Undefined when
 * something is not cached, or the answer is an error: the caller then takes the usual way.
 */
export function getPipelineMetricsNow(
  ctx: RequestContext,
  request: PipelineMetricsRequest,
): { pipeline: PipelineView; selection: MetricSelection } | undefined {
  let names: MetricName[] | undefined;
  try {
    names = metricNamesOf(ctx, request.metrics);
  } catch {
    return undefined;
  }
  const snapshot = snapshotNow(ctx, request.snapshotId);
  const pipeline = snapshot && pipelineNow(ctx, snapshot.id, request.pipelineId);
  const selection = pipeline && metricsOfNow(ctx, pipeline, names);
  return pipeline && selection ? { pipeline, selection } : undefined;
}

/** metricsOf without waiting, when everything it reads is cached; undefined otherwise, or when the answer is an error. */
export function metricsOfNow(
  ctx: RequestContext,
  pipeline: PipelineView,
  names?: readonly MetricName[],
): MetricSelection | undefined {
  const facts = factsNow(ctx, pipeline.snapshotId, pipeline.id);
  const settings = facts && metricSettingsNow(ctx);
  if (!facts || !settings) return undefined;
  const targets = settings.period ? targetsOfYearNow(ctx, periodYearOf(facts.snapshotAt)) : [];
  if (targets === undefined) return undefined;
  const env = { currency: settings.currency, period: settings.period, targets };
  const visible =
    !askedDerivedFromTargets(names) || mayReadTargetsOfAllNow(ctx, facts.memberIds, targets);
  if (visible === undefined || (names && !visible)) return undefined;
  try {
    return selectionOf(ctx, facts, env, names, visible);
  } catch {
    return undefined; // a metric asked for by name that cannot be computed: the usual way answers 409
  }
}

function askedDerivedFromTargets(names: readonly MetricName[] | undefined): boolean {
  return (names ? names.map(metricDefinition) : METRIC_CATALOGUE).some(derivedFromTargets);
}

/** The metrics asked for (all when `names` is undefined), those derived from targets withheld unless `visible`. */
function selectionOf(
  ctx: RequestContext,
  facts: PipelineFacts,
  env: MetricEnvironment,
  names: readonly MetricName[] | undefined,
  visible: boolean,
): MetricSelection {
  const memos = ctx.access.metricsMemo as WeakMap<PipelineFacts, AllMetricsMemo[]>;
  if (names) {
    if (!visible) throw withheldError(names.map(metricDefinition).filter(derivedFromTargets));
    return pick(allMetrics(memos, facts, env), names) ?? selectMetrics(facts, env, names);
  }
  const selection = allMetrics(memos, facts, env);
  return visible ? selection : withhold(selection, derivedFromTargets);
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

function allMetrics(
  memos: WeakMap<PipelineFacts, AllMetricsMemo[]>,
  facts: PipelineFacts,
  env: MetricEnvironment,
): MetricSelection {
  const kept = memos.get(facts) ?? [];
  const memo = kept.find(
    (m) => m.currency === env.currency && m.period === env.period && m.targets === env.targets,
  );
  if (memo) return memo.selection;
  const selection = selectMetrics(facts, env);
  memos.set(facts, [
    { currency: env.currency, period: env.period, targets: env.targets, selection },
    ...kept.slice(0, MEMOS_PER_FACTS - 1),
  ]);
  return selection;
}
