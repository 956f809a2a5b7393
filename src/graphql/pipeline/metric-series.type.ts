import { Field, Float, Int, ObjectType } from 'type-graphql';
import type { Timeseries } from '../../services/timeseries.service';
import { Period, toPeriod } from '../settings/period.enum';
import { MetricDefinition, toMetricDefinition } from './metric-definition.type';
import { finiteOrNull } from './metric-result.type';
import { countedListComplexity } from '../../security/field-costs';

@ObjectType({ simpleResolvers: true, description: 'One period of a metric series.' })
export class MetricSeriesPoint {
  @Field({ description: '`Q3`, `m7`, `w27`.' })
  period!: string;

  @Field(() => Int)
  year!: number;

  @Field({ description: 'First day, YYYY-MM-DD (UTC).' })
  start!: string;

  @Field({ description: 'Last day, YYYY-MM-DD (UTC), inclusive.' })
  end!: string;

  @Field(() => Float, {
    nullable: true,
    description:
      'The metric at the last snapshot inside the period; null where there is none, or where it is not a finite number.',
  })
  value!: number | null;
}

@ObjectType({
  simpleResolvers: true,
  description: 'A metric over consecutive periods of the configured unit, oldest first.',
})
export class MetricSeries {
  @Field(() => MetricDefinition)
  metric!: MetricDefinition;

  @Field()
  unit!: string;

  @Field(() => Period)
  period!: Period;

  @Field(() => [MetricSeriesPoint], { complexity: countedListComplexity })
  points!: MetricSeriesPoint[];
}

export function toMetricSeries(series: Timeseries): MetricSeries {
  return {
    metric: toMetricDefinition(series.definition),
    unit: series.unit,
    period: toPeriod(series.period),
    points: series.points.map((point) => ({ ...point, value: finiteOrNull(point.value) })),
  };
}
