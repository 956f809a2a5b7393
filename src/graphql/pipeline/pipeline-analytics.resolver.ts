import { Args, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { AuthenticatedContext } from '../../context/request-context';
import { getMovement, movementDeals } from '../../services/analytics/movement.service';
import { getSlippedDeals } from '../../services/analytics/slipped-deals.service';
import { getStageAnalytics } from '../../services/analytics/stage-analytics.service';
import {
  analysisComplexity,
  analysisPageComplexity,
  pageComplexity,
} from '../../security/field-costs';
import { PageArgs } from '../common/page.args';
import { MovementArgs, SlippedDealsArgs, StageAnalyticsArgs } from './analytics.args';
import {
  MovementBucket,
  MovementDealConnection,
  PipelineMovement,
  toMovementDeal,
  toPipelineMovement,
} from './movement.type';
import { Pipeline } from './pipeline.type';
import { SlippedDealConnection, toSlippedDealConnection } from './slipped-deal.type';
import { StageAnalytics, toStageAnalytics } from './stage-analytics.type';

/** Movement, stage analytics and slipped deals of a pipeline (docs/analytics.md). */
@Resolver(() => Pipeline)
export class PipelineAnalyticsResolver {
  @FieldResolver(() => PipelineMovement, {
    description:
      'What moved in this pipeline between `from` and `to`: the open pipeline at each and every deal of either in one bucket. ' +
      'BAD_USER_INPUT for a bad date or window, or `from` after `to`; NOT_FOUND when there is no snapshot by `from` (naming the ' +
      'earliest), a snapshot was removed, or the pipeline is in neither; CONFLICT for closeWindow `period` while the period is not set.',
    complexity: analysisComplexity,
  })
  async movement(
    @Root() pipeline: Pipeline,
    @Args() args: MovementArgs,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<PipelineMovement> {
    return toPipelineMovement(
      await getMovement(ctx, {
        pipelineId: pipeline.id,
        from: args.from,
        to: args.to,
        closeWindow: args.closeWindow,
      }),
    );
  }

  @FieldResolver(() => StageAnalytics, {
    description:
      'Per stage of the definition, in order, the deals of this pipeline that entered it from `from` to `to` (dates, both included), ' +
      'read from their stage histories in the latest snapshot at or before the end of `to`.',
    complexity: analysisComplexity,
  })
  async stageAnalytics(
    @Root() pipeline: Pipeline,
    @Args() args: StageAnalyticsArgs,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<StageAnalytics> {
    return toStageAnalytics(
      await getStageAnalytics(ctx, { pipelineId: pipeline.id, from: args.from, to: args.to }),
    );
  }

  @FieldResolver(() => SlippedDealConnection, {
    description:
      'Open deals of this pipeline at `to` whose close date moved later at least once after `from`, the most days pushed first.',
    complexity: analysisPageComplexity,
  })
  async slippedDeals(
    @Root() pipeline: Pipeline,
    @Args() args: SlippedDealsArgs,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<SlippedDealConnection> {
    return toSlippedDealConnection(
      await getSlippedDeals(ctx, {
        pipelineId: pipeline.id,
        from: args.from,
        to: args.to,
        first: args.first,
        after: args.after,
      }),
    );
  }
}

@Resolver(() => MovementBucket)
export class MovementBucketResolver {
  @FieldResolver(() => MovementDealConnection, {
    description: "A page of the bucket's deals, by deal id.",
    complexity: pageComplexity,
  })
  async deals(
    @Root() bucket: MovementBucket,
    @Args() args: PageArgs,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<MovementDealConnection> {
    const page = await movementDeals(ctx, bucket.answer, bucket.kind, args);
    return {
      totalCount: page.totalCount,
      nodes: page.nodes.map(toMovementDeal),
      pageInfo: { hasNextPage: page.hasNextPage, endCursor: page.endCursor },
    };
  }
}
