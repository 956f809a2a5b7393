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
      'Null when the formula divides by zero (no closed deal in the period...). Percentages are 0–100.',
  })
  value!: number | null;

  @Field({ description: 'A currency code (`EUR`), `count`, `percentage` or `days`.' })
  unit!: string;
}

export function toMetricResult(value: MetricValue): MetricResult {
  return { definition: toMetricDefinition(value.definition), value: value.value, unit: value.unit };
}
