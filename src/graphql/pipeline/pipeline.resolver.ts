import { Arg, Args, Ctx, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import type { AuthenticatedContext } from '../../context/request-context';
import { metricsOf } from '../../services/metrics/metrics.service';
import { parseMetricNames } from '../../services/metrics/select-metrics';
import {
  definitionOf,
  getPipeline,
  listOpportunities,
  opportunityCursor,
} from '../../services/pipeline.service';
import { getTimeseries } from '../../services/timeseries.service';
import { Member, toMember } from '../member/member.type';
import { Team, toTeam } from '../team/team.type';
import { MetricResult, toMetricResult } from './metric-result.type';
import { MetricSeries, toMetricSeries } from './metric-series.type';
import { OpportunityConnection } from './opportunity-connection.type';
import { toOpportunity } from './opportunity.type';
import { OpportunitiesArgs, PipelineArgs, TimeseriesArgs } from './pipeline.args';
import { PipelineDefinition, toPipelineDefinition } from './pipeline-definition.type';
import { Pipeline, toPipeline } from './pipeline.type';
import {
  metricsComplexity,
  pageComplexity,
  timeseriesComplexity,
} from '../../security/field-costs';

@Resolver(() => Pipeline)
export class PipelineResolver {
  @Query(() => Pipeline, {
    description:
      'A pipeline of a snapshot (the latest by default); NOT_FOUND when it is not in it.',
  })
  async pipeline(@Args() args: PipelineArgs, @Ctx() ctx: AuthenticatedContext): Promise<Pipeline> {
    return toPipeline(await getPipeline(ctx, args.id, args.snapshotId));
  }

  @FieldResolver(() => PipelineDefinition)
  async definition(
    @Root() pipeline: Pipeline,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<PipelineDefinition> {
    const definition = await definitionOf(ctx, pipeline);
    if (!definition)
      throw new Error(
        `definition ${pipeline.definitionId} of pipeline ${pipeline.id} missing in snapshot ${pipeline.snapshotId}`,
      );
    return toPipelineDefinition(definition);
  }

  @FieldResolver(() => Team, {
    nullable: true,
    description: 'The team of a TEAM pipeline; null otherwise.',
  })
  async team(@Root() pipeline: Pipeline, @Ctx() ctx: AuthenticatedContext): Promise<Team | null> {
    if (!pipeline.teamId || pipeline.kind !== 'team') return null;
    const team = await ctx.loaders.teamById.load(pipeline.teamId);
    return team && toTeam(team);
  }

  @FieldResolver(() => Member, {
    nullable: true,
    description: 'The member of a MEMBER pipeline; null otherwise (or once the member is deleted).',
  })
  async member(
    @Root() pipeline: Pipeline,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<Member | null> {
    if (!pipeline.memberId || pipeline.kind !== 'member') return null;
    const member = await ctx.loaders.memberById.load(pipeline.memberId);
    return member && toMember(member);
  }

  @FieldResolver(() => [MetricResult], {
    description:
      'Metrics for the period containing the snapshot. Without `names`, metrics that cannot be computed yet are left out, and so are ' +
      'metrics derived from targets (quota_attainment, pipeline_coverage) unless the caller may read the targets of every member of the ' +
      'pipeline; named, they are a CONFLICT and FORBIDDEN respectively; an unknown name is BAD_USER_INPUT.',
    complexity: metricsComplexity,
  })
  async metrics(
    @Root() pipeline: Pipeline,
    @Arg('names', () => [String], { nullable: true }) names: string[] | null,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<MetricResult[]> {
    const selection = await metricsOf(ctx, pipeline, parseMetricNames(names ?? undefined, 'names'));
    return selection.values.map(toMetricResult);
  }

  @FieldResolver(() => MetricSeries, {
    description:
      'One metric over the last `duration` periods; CONFLICT when the period is not set; FORBIDDEN for a metric derived from targets ' +
      'unless the caller may read the targets of every member of the pipeline.',
    complexity: timeseriesComplexity,
  })
  async timeseries(
    @Root() pipeline: Pipeline,
    @Args() args: TimeseriesArgs,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<MetricSeries> {
    return toMetricSeries(
      await getTimeseries(ctx, {
        pipelineId: pipeline.id,
        metricName: args.metric,
        duration: args.duration,
      }),
    );
  }

  @FieldResolver(() => OpportunityConnection, { complexity: pageComplexity })
  async opportunities(
    @Root() pipeline: Pipeline,
    @Args() args: OpportunitiesArgs,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<OpportunityConnection> {
    const page = await listOpportunities(ctx, pipeline, args);
    return {
      edges: page.nodes.map((node) => ({
        cursor: opportunityCursor(node),
        node: toOpportunity(node),
      })),
      pageInfo: { hasNextPage: page.hasNextPage, endCursor: page.endCursor },
    };
  }
}
