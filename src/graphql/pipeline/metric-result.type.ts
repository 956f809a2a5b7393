import { Field, Float, ObjectType } from 'type-graphql';
import type { MetricValue } from '../../services/metrics/select-metrics';
import { MetricDefinition, toMetricDefinition } from './metric-definition.type';

@ObjectType({
  simpleResolvers: true,
  description: 'One metric of one pipeline, for the period containing its snapshot.',
})
export class MetricResult {
  @Field(() => MetricDefinition)
  definition!: MetricDefinition;

  @Field(() => Float, {
    nullable: true,
    description:
      'Null when the formula divides by zero (no closed deal in the period...) or its result is not a finite number ' +
      '(amounts too large to add up). Percentages are 0–100.',
  })
  value!: number | null;

  @Field({ description: 'A currency code (`EUR`), `count`, `percentage` or `days`.' })
  unit!: string;
}

/**
 * A metric value as GraphQL's Float can carry it: a value that is not finite (amounts whose sum
 * overflows) is null, as REST's JSON renders it, rather than a serialisation error that would
 * fail every metric read of the pipeline.
 */
export function finiteOrNull(value: number | null): number | null {
  return value !== null && Number.isFinite(value) ? value : null;
}

export function toMetricResult(value: MetricValue): MetricResult {
  return {
    definition: toMetricDefinition(value.definition),
    value: finiteOrNull(value.value),
    unit: value.unit,
  };
}
