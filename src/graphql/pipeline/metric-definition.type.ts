import { Field, ID, ObjectType } from 'type-graphql';
import type { MetricDefinition as CatalogueEntry } from '../../domain/metric-catalogue';

@ObjectType({
  simpleResolvers: true,
  description: 'An entry of the metric catalogue; the id is a stable UUID.',
})
export class MetricDefinition {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'The API name: `win_rate`, `pipeline_value`...' })
  apiCodename!: string;

  @Field({
    description:
      '`currency` (the configured code, given on each result), `count`, `percentage` or `days`.',
  })
  unit!: string;

  @Field()
  description!: string;
}

export function toMetricDefinition(entry: CatalogueEntry): MetricDefinition {
  return {
    id: entry.id,
    apiCodename: entry.apiCodename,
    unit: entry.unitKind,
    description: entry.description,
  };
}
