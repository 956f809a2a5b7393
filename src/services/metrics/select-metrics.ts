import { BadUserInputError, ConflictError } from '../../errors';
import {
  METRIC_CATALOGUE,
  METRIC_NAMES,
  MetricDefinition,
  MetricName,
  isMetricName,
  metricDefinition,
} from '../../domain/metric-catalogue';
import { MetricEnvironment, evaluateMetric } from '../../domain/evaluate-metric';
import { PipelineFacts } from '../../domain/pipeline-facts';
import { WITHHELD_REASON } from './target-access';
import type {
  MetricSelection,
  MetricUnavailable,
  MetricValue,
} from '../../domain/metric-selection';

export type { MetricSelection, MetricUnavailable, MetricValue };

/**
 * Checks the requested metric names. `undefined` or an empty list means "all". Names may arrive
 * comma-joined (`metrics=a,b`), so each entry is split. Duplicates collapse, order is kept.
 */
export function parseMetricNames(
  raw: readonly string[] | undefined,
  field = 'metrics',
): MetricName[] | undefined {
  if (raw === undefined) return undefined;
  const names = raw
    .flatMap((entry) => entry.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) return undefined;
  const unknown = names.filter((name) => !isMetricName(name));
  if (unknown.length > 0) {
    const message = `Unknown metric ${unknown.map((n) => `"${n}"`).join(', ')}; allowed: ${METRIC_NAMES.join(', ')}`;
    throw new BadUserInputError(message, [{ field, message }]);
  }
  return [...new Set(names as MetricName[])];
}

/**
 * Evaluates the requested metrics (all when `names` is undefined). Unfiltered, the metrics that
 * cannot be computed are left out and reported in `omitted`; asked for by name, they are a 409.
 */
export function selectMetrics(
  facts: PipelineFacts,
  env: MetricEnvironment,
  names?: readonly MetricName[],
): MetricSelection {
  const definitions = names ? names.map(metricDefinition) : METRIC_CATALOGUE;
  const outcomes = definitions.map((definition) => evaluateMetric(definition, facts, env));
  const values: MetricValue[] = [];
  const omitted: MetricUnavailable[] = [];
  for (const outcome of outcomes) {
    if (outcome.kind === 'value') values.push(outcome);
    else omitted.push(outcome);
  }
  if (names && omitted.length > 0) {
    throw new ConflictError(
      `Cannot compute ${omitted.map((o) => `${o.definition.apiCodename}: ${o.reason}`).join('; ')}`,
    );
  }
  return { values, omitted, withheld: [] };
}

/** The selection without the metrics `hidden` picks, which move to `withheld`. */
export function withhold(
  selection: MetricSelection,
  hidden: (definition: MetricDefinition) => boolean,
): MetricSelection {
  return {
    values: selection.values.filter((v) => !hidden(v.definition)),
    omitted: selection.omitted.filter((o) => !hidden(o.definition)),
    withheld: [...selection.withheld, ...METRIC_CATALOGUE.filter(hidden)],
  };
}

/** The contract's `status.message` for a metrics answer. */
export function metricsStatusMessage(selection: MetricSelection): string {
  let message = 'Metrics found and retrieved';
  if (selection.omitted.length > 0) {
    message += `; not computed yet: ${selection.omitted.map((o) => `${o.definition.apiCodename} (${o.reason})`).join(', ')}`;
  }
  if (selection.withheld.length > 0) {
    message += `; not available to this caller: ${selection.withheld.map((d) => d.apiCodename).join(', ')} (${WITHHELD_REASON})`;
  }
  return message;
}
