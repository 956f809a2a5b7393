import { Args, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { AuthenticatedContext } from '../../context/request-context';
import * as settings from '../../services/settings.service';
import { SetCurrencyArgs, SetPeriodArgs } from './settings.args';
import { Settings, toSettings } from './settings.type';

@Resolver(() => Settings)
export class SettingsResolver {
  @Query(() => Settings, { description: 'Readable by every role.' })
  async settings(@Ctx() ctx: AuthenticatedContext): Promise<Settings> {
    return toSettings(await settings.getSettings(ctx));
  }

  @Mutation(() => Settings, { description: 'Admin only.' })
  async setCurrency(
    @Args() args: SetCurrencyArgs,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<Settings> {
    await settings.setCurrency(ctx, args.currency);
    return toSettings(await settings.getSettings(ctx));
  }

  @Mutation(() => Settings, {
    description: 'Admin only. CONFLICT while targets exist, unless resetTargets deletes them.',
  })
  async setPeriod(
    @Args() args: SetPeriodArgs,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<Settings> {
    await settings.setPeriod(ctx, args.period, args.resetTargets);
    return toSettings(await settings.getSettings(ctx));
  }
}
