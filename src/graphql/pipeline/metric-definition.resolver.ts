import { Ctx, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../context/request-context';
import { METRIC_CATALOGUE } from '../../services/metrics/catalogue';
import { principalOf } from '../member/principal-of';
import { MetricDefinition, toMetricDefinition } from './metric-definition.type';
import { listComplexity } from '../../security/field-costs';

@Resolver(() => MetricDefinition)
export class MetricDefinitionResolver {
  @Query(() => [MetricDefinition], {
    description: 'The metric catalogue, in a fixed order.',
    complexity: listComplexity,
  })
  metricDefinitions(@Ctx() ctx: RequestContext): MetricDefinition[] {
    principalOf(ctx);
    return METRIC_CATALOGUE.map(toMetricDefinition);
  }
}
