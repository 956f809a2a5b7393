import { Arg, Args, Ctx, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../context/request-context';
import { memberNow, teamNow } from '../../loaders/in-memory';
import { metricsOf, metricsOfNow } from '../../services/metrics/metrics.service';
import { parseMetricNames } from '../../services/metrics/select-metrics';
import {
  definitionOf,
  getPipeline,
  listOpportunities,
  opportunityCursor,
} from '../../services/pipeline.service';
import { getTimeseries } from '../../services/timeseries.service';
import { principalOf } from '../member/principal-of';
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
  async pipeline(@Args() args: PipelineArgs, @Ctx() ctx: RequestContext): Promise<Pipeline> {
    principalOf(ctx);
    return toPipeline(await getPipeline(ctx, args.id, args.snapshotId));
  }

  @FieldResolver(() => PipelineDefinition)
  async definition(
    @Root() pipeline: Pipeline,
    @Ctx() ctx: RequestContext,
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
  team(@Root() pipeline: Pipeline, @Ctx() ctx: RequestContext): Team | null | Promise<Team | null> {
    if (!pipeline.teamId || pipeline.kind !== 'team') return null;
    const cached = teamNow(ctx, pipeline.teamId);
    if (cached !== undefined) return cached && toTeam(cached);
    return ctx.loaders.teamById.load(pipeline.teamId).then((team) => team && toTeam(team));
  }

  @FieldResolver(() => Member, {
    nullable: true,
    description: 'The member of a MEMBER pipeline; null otherwise (or once the member is deleted).',
  })
  member(
    @Root() pipeline: Pipeline,
    @Ctx() ctx: RequestContext,
  ): Member | null | Promise<Member | null> {
    if (!pipeline.memberId || pipeline.kind !== 'member') return null;
    const cached = memberNow(ctx, pipeline.memberId);
    if (cached !== undefined) return cached && toMember(cached);
    return ctx.loaders.memberById
      .load(pipeline.memberId)
      .then((member) => member && toMember(member));
  }

  @FieldResolver(() => [MetricResult], {
    description:
      'Metrics for the period containing the snapshot. Without `names`, metrics that cannot be computed yet are left out, and so are ' +
      'metrics derived from targets (quota_attainment, pipeline_coverage) unless the caller may read the targets of every member of the ' +
      'pipeline; named, they are a CONFLICT and FORBIDDEN respectively; an unknown name is BAD_USER_INPUT.',
    complexity: metricsComplexity,
  })
  metrics(
    @Root() pipeline: Pipeline,
    @Arg('names', () => [String], { nullable: true }) names: string[] | null,
    @Ctx() ctx: RequestContext,
  ): MetricResult[] | Promise<MetricResult[]> {
    const parsed = parseMetricNames(names ?? undefined, 'names');
    // A dashboard computed again after a write has its data in memory: no loader batch, no promise.
    const now = metricsOfNow(ctx, pipeline, parsed);
    if (now) return now.values.map(toMetricResult);
    return metricsOf(ctx, pipeline, parsed).then((selection) =>
      selection.values.map(toMetricResult),
    );
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
    @Ctx() ctx: RequestContext,
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
    @Ctx() ctx: RequestContext,
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
