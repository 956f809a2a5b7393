import type { ComplexityEstimator } from 'graphql-query-complexity';
import { METRIC_NAMES } from '../domain/metric-catalogue';
import { MOVEMENT_KINDS } from '../domain/movement';
import { MAX_DURATION } from '../services/timeseries.service';
import { QUERY_COST } from './query-cost';

/**
 * The `complexity` of the fields whose cost is not 1 plus what they select (query-cost.ts), set on
 * them with type-graphql's `@Field({ complexity })`. Arguments are the values execution will see:
 * variables coerced, defaults applied.
 */

/**
 * Estimated cost of one facts evaluation: one metric of one pipeline for one period. At 3 (plus 1
 * per selected field) a cost unit of a series is about as much CPU as one of any other field
 * (docs/performance.md).
 */
export const EVALUATION_COST = 3;

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

/** A list of unknown length: what it selects, `defaultListSize` times. */
export const listComplexity: ComplexityEstimator = ({ childComplexity }) =>
  1 + QUERY_COST.defaultListSize * childComplexity;

/** A page (`first`, default from the schema): what it selects, once per item of the page. */
export const pageComplexity: ComplexityEstimator = ({ args, childComplexity }) =>
  1 + countFrom(args.first, QUERY_COST.maxPageSize) * childComplexity;

/** A list whose length the field above already counted (a page's `edges`, a series' `points`). */
export const countedListComplexity: ComplexityEstimator = ({ childComplexity }) =>
  1 + childComplexity;

/** `Pipeline.metrics`: one evaluation and one result per metric asked for (eight without `names`). */
export const metricsComplexity: ComplexityEstimator = ({ args, childComplexity }) =>
  1 + metricCount(args.names) * (EVALUATION_COST + childComplexity);

/**
 * `Pipeline.timeseries`: one evaluation per period, and what the series selects once per period
 * (its points, and the few fields beside them, which are counted per period too: a slight
 * overestimate that keeps the model to one figure per field).
 */
export const timeseriesComplexity: ComplexityEstimator = ({ args, childComplexity }) =>
  1 + countFrom(args.duration, MAX_DURATION) * (EVALUATION_COST + childComplexity);

/**
 * Estimated cost of one analysis (a movement, stage analytics, slipped deals): a pass over every
 * deal of a definition in one or two snapshots, a few milliseconds at 100 000 deals, as much CPU
 * as a few hundred fields.
 */
export const ANALYSIS_COST = 200;

/** `Pipeline.movement`, `Pipeline.stageAnalytics`: one analysis and what it selects. */
export const analysisComplexity: ComplexityEstimator = ({ childComplexity }) =>
  1 + ANALYSIS_COST + childComplexity;

/** `Pipeline.slippedDeals`: one analysis, and what the page selects once per deal. */
export const analysisPageComplexity: ComplexityEstimator = ({ args, childComplexity }) =>
  1 + ANALYSIS_COST + countFrom(args.first, QUERY_COST.maxPageSize) * childComplexity;

/** `PipelineMovement.buckets`: what a bucket selects, once per kind of bucket. */
export const bucketsComplexity: ComplexityEstimator = ({ childComplexity }) =>
  1 + MOVEMENT_KINDS.length * childComplexity;
