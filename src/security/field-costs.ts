import { METRIC_NAMES } from '../domain/metric-catalogue';
import { MAX_DURATION } from '../services/timeseries.service';

/**
 * Estimated cost of one facts evaluation: one metric of one pipeline for one period. A point of a
 * series takes about 15 µs of CPU with its completion; at 3 (plus 1 per selected field) a cost
 * unit of a series is as much CPU as one of any other field (QUERY_COST), and the longest series
 * accepted under every pipeline of every definition is 49 periods.
 */
export const EVALUATION_COST = 3;

/** How a field's cost follows from its arguments (variables and defaults applied, not coerced). */
export interface FieldCost {
  /** Work of one resolution of the field, beyond the 1 every field costs. */
  work?(args: Readonly<Record<string, unknown>>): number;
  /** Length of the list the field returns, instead of the assumed list size. */
  items?(args: Readonly<Record<string, unknown>>): number;
  /** Lengths of the list fields selected directly below the field, by name. */
  lists?(args: Readonly<Record<string, unknown>>): ReadonlyMap<string, number>;
}

/** An integer from 1 to `max`; anything else is `max`: validation refuses it later, and here it must not lower the estimate. */
export function countFrom(value: unknown, max: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1
    ? Math.min(value, max)
    : max;
}

/** Metrics a `names` argument asks for, counted as the service reads it (comma-joined entries split); absent or empty: all. */
export function metricCount(names: unknown): number {
  const entries = typeof names === 'string' ? [names] : Array.isArray(names) ? names : [];
  const distinct = new Set(
    entries
      .flatMap((entry) =>
        typeof entry === 'string' ? entry.split(',').map((name) => name.trim()) : [String(entry)],
      )
      .filter((name) => name !== ''),
  );
  return distinct.size === 0 ? METRIC_NAMES.length : Math.min(distinct.size, METRIC_NAMES.length);
}

/**
 * Fields whose work or list length depends on their arguments, by `Type.field`. Every other field
 * costs 1, a list multiplies what it selects by QUERY_COST.defaultListSize, and a field with a
 * `first` argument is a page (query-cost.ts).
 */
export const FIELD_COSTS: ReadonlyMap<string, FieldCost> = new Map<string, FieldCost>([
  [
    // One evaluation per period, and as many points.
    'Pipeline.timeseries',
    {
      work: (args) => countFrom(args.duration, MAX_DURATION) * EVALUATION_COST,
      lists: (args) => new Map([['points', countFrom(args.duration, MAX_DURATION)]]),
    },
  ],
  [
    // One evaluation per metric asked for (all eight without `names`), and at most as many results.
    'Pipeline.metrics',
    {
      work: (args) => metricCount(args.names) * EVALUATION_COST,
      items: (args) => metricCount(args.names),
    },
  ],
]);
