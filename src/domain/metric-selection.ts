import type { MetricDefinition } from './metric-catalogue';
import type { MetricOutcome } from './evaluate-metric';

export type MetricValue = Extract<MetricOutcome, { kind: 'value' }>;
export type MetricUnavailable = Extract<MetricOutcome, { kind: 'unavailable' }>;

/** The metrics of one pipeline an answer shows, and those it leaves out and why. */
export interface MetricSelection {
  values: MetricValue[];
  /** Left out of an unfiltered answer because they cannot be computed yet. */
  omitted: MetricUnavailable[];
  /** Left out of an unfiltered answer because the caller may not see them (target-access.ts). */
  withheld: MetricDefinition[];
}
