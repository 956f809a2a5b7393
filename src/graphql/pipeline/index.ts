import { MemberPipelinesResolver } from './member-pipelines.resolver';
import { MetricDefinitionResolver } from './metric-definition.resolver';
import { OpportunityResolver } from './opportunity.resolver';
import { MovementBucketResolver, PipelineAnalyticsResolver } from './pipeline-analytics.resolver';
import { PipelineDefinitionResolver } from './pipeline-definition.resolver';
import { PipelineSnapshotResolver } from './pipeline-snapshot.resolver';
import { PipelineResolver } from './pipeline.resolver';
import { TeamPipelinesResolver } from './team-pipelines.resolver';

/** The resolvers of the pipelines half, appended to RESOLVERS. */
export const PIPELINE_RESOLVERS = [
  PipelineSnapshotResolver,
  PipelineDefinitionResolver,
  PipelineResolver,
  PipelineAnalyticsResolver,
  MovementBucketResolver,
  OpportunityResolver,
  MetricDefinitionResolver,
  TeamPipelinesResolver,
  MemberPipelinesResolver,
] as const;
