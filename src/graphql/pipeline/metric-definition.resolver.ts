import { Query, Resolver } from 'type-graphql';
import { METRIC_CATALOGUE } from '../../domain/metric-catalogue';
import { MetricDefinition, toMetricDefinition } from './metric-definition.type';
import { listComplexity } from '../../security/field-costs';

@Resolver(() => MetricDefinition)
export class MetricDefinitionResolver {
  @Query(() => [MetricDefinition], {
    description: 'The metric catalogue, in a fixed order.',
    complexity: listComplexity,
  })
  metricDefinitions(): MetricDefinition[] {
    return METRIC_CATALOGUE.map(toMetricDefinition);
  }
}
