import { Args, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { AuthenticatedContext } from '../../context/request-context';
import { getForecast } from '../../services/forecasts/forecast.service';
import { Member } from '../member/member.type';
import { MemberForecastArgs } from './forecast.args';
import { Forecast, toForecast } from './forecast.type';

/** Adds `Member.forecast` to the members half's `Member` type. */
@Resolver(() => Member)
export class MemberForecastResolver {
  @FieldResolver(() => Forecast, {
    description:
      "The member's forecast of a period (scope member:<id>): the member, their manager (unless the member is an admin), an admin.",
  })
  async forecast(
    @Root() member: Member,
    @Args() args: MemberForecastArgs,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<Forecast> {
    return toForecast(
      await getForecast(ctx, { period: args.period, scope: `member:${member.id}` }),
    );
  }
}
