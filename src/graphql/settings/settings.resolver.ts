import { Args, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../context/request-context';
import * as settings from '../../services/settings.service';
import { principalOf } from '../member/principal-of';
import { SetCurrencyArgs, SetPeriodArgs } from './settings.args';
import { Settings, toSettings } from './settings.type';

@Resolver(() => Settings)
export class SettingsResolver {
  @Query(() => Settings, { description: 'Readable by every role.' })
  async settings(@Ctx() ctx: RequestContext): Promise<Settings> {
    return toSettings(await settings.getSettings(principalOf(ctx), ctx.data));
  }

  @Mutation(() => Settings, { description: 'Admin only.' })
  async setCurrency(@Args() args: SetCurrencyArgs, @Ctx() ctx: RequestContext): Promise<Settings> {
    const principal = principalOf(ctx);
    await settings.setCurrency(principal, args.currency);
    return toSettings(await settings.getSettings(principal, ctx.data));
  }

  @Mutation(() => Settings, {
    description: 'Admin only. CONFLICT while targets exist, unless resetTargets deletes them.',
  })
  async setPeriod(@Args() args: SetPeriodArgs, @Ctx() ctx: RequestContext): Promise<Settings> {
    const principal = principalOf(ctx);
    await settings.setPeriod(principal, args.period, args.resetTargets);
    return toSettings(await settings.getSettings(principal, ctx.data));
  }
}
