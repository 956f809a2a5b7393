import { Arg, Args, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { AuthenticatedContext } from '../../context/request-context';
import { pageComplexity } from '../../security/field-costs';
import { getAccuracy } from '../../services/forecasts/accuracy.service';
import {
  findForecastCadence,
  getForecastCategoryMapping,
  setForecastCadence,
  setForecastCategoryMapping,
} from '../../services/forecasts/forecast-settings.service';
import { getForecast } from '../../services/forecasts/forecast.service';
import { missingSubmissions } from '../../services/forecasts/missing.service';
import { listSubmissions, submitForecast } from '../../services/forecasts/submission.service';
import {
  ForecastCadence,
  ForecastCategoryMapping,
  toCadence,
  toMapping,
} from './forecast-cadence.type';
import {
  ForecastArgs,
  ForecastCategoryMappingArgs,
  ForecastSubmissionsArgs,
  MemberForecastArgs,
  SetForecastCadenceArgs,
  SetForecastCategoryMappingInput,
  SubmitForecastInput,
} from './forecast.args';
import { Forecast, toForecast } from './forecast.type';
import { ForecastAccuracy, ForecastMissing, toAccuracy, toMissing } from './forecast-review.type';
import {
  ForecastSubmission,
  ForecastSubmissionPage,
  toSubmission,
} from './forecast-submission.type';

@Resolver()
export class ForecastResolver {
  @Query(() => Forecast, {
    description:
      'The forecast of a period for a scope (GET /forecasts). Admin: any scope; manager: their team and its members; member: their own.',
  })
  async forecast(@Args() args: ForecastArgs, @Ctx() ctx: AuthenticatedContext): Promise<Forecast> {
    return toForecast(await getForecast(ctx, args));
  }

  @Query(() => ForecastSubmissionPage, {
    description: 'The calls of a period within a scope, newest first (GET /forecasts/submissions).',
    complexity: pageComplexity,
  })
  async forecastSubmissions(
    @Args() args: ForecastSubmissionsArgs,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<ForecastSubmissionPage> {
    const page = await listSubmissions(ctx, {
      period: args.period,
      scope: args.scope,
      limit: args.first,
      cursor: args.after,
    });
    return {
      nodes: page.calls.map(toSubmission),
      pageInfo: {
        hasNextPage: page.nextCursor !== null,
        endCursor: page.calls.length > 0 ? (page.nextCursor ?? null) : null,
      },
    };
  }

  @Query(() => ForecastMissing, {
    description: 'Who has not submitted in the current cadence interval (GET /forecasts/missing).',
  })
  async forecastMissing(
    @Args() args: MemberForecastArgs,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<ForecastMissing> {
    return toMissing(await missingSubmissions(ctx, args));
  }

  @Query(() => ForecastAccuracy, {
    description: 'For an ended period, each call against what was won (GET /forecasts/accuracy).',
  })
  async forecastAccuracy(
    @Args() args: ForecastArgs,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<ForecastAccuracy> {
    return toAccuracy(await getAccuracy(ctx, args));
  }

  @Query(() => ForecastCadence, { nullable: true, description: 'Null until an admin sets it.' })
  async forecastCadence(@Ctx() ctx: AuthenticatedContext): Promise<ForecastCadence | null> {
    const cadence = await findForecastCadence(ctx);
    return cadence ? toCadence(cadence) : null;
  }

  @Query(() => ForecastCategoryMapping, {
    description: "A definition's stage → category mapping; NOT_FOUND when none was set.",
  })
  async forecastCategoryMapping(
    @Args() args: ForecastCategoryMappingArgs,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<ForecastCategoryMapping> {
    return toMapping(await getForecastCategoryMapping(ctx, args.pipelineDefinitionId));
  }

  @Mutation(() => ForecastSubmission, {
    description:
      "Submits a call: a member's own, a manager's for their team, an admin's for the company (POST /forecasts/submissions).",
  })
  async submitForecast(
    @Arg('input', () => SubmitForecastInput) input: SubmitForecastInput,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<ForecastSubmission> {
    return toSubmission(await submitForecast(ctx, input));
  }

  @Mutation(() => ForecastCadence, { description: 'Admin only (PUT /settings/forecast-cadence).' })
  async setForecastCadence(
    @Args() args: SetForecastCadenceArgs,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<ForecastCadence> {
    const day = args.every === 'month' && /^\d+$/.test(args.day) ? Number(args.day) : args.day;
    return toCadence(await setForecastCadence(ctx, args.every, day));
  }

  @Mutation(() => ForecastCategoryMapping, {
    description: 'Admin only (PUT /settings/forecast-categories); imports from now on apply it.',
  })
  async setForecastCategoryMapping(
    @Arg('input', () => SetForecastCategoryMappingInput) input: SetForecastCategoryMappingInput,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<ForecastCategoryMapping> {
    const stages = Object.fromEntries(input.stages.map((s) => [s.stageId, s.category]));
    return toMapping(
      await setForecastCategoryMapping(ctx, { definitionId: input.pipelineDefinitionId, stages }),
    );
  }
}
