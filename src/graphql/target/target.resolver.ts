import { Arg, Args, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { AuthenticatedContext } from '../../context/request-context';
import type { TargetSet as TargetSetView } from '../../services/target.service';
import * as targets from '../../services/target.service';
import { toPeriod } from '../settings/period.enum';
import { MemberTargetsArgs } from './target.args';
import { SetMemberTargetsInput } from './target.input';
import { TargetSet } from './target-set.type';

function toGraph(set: TargetSetView): TargetSet {
  return { ...set, period: toPeriod(set.period) };
}

@Resolver(() => TargetSet)
export class TargetResolver {
  @Query(() => TargetSet, {
    description:
      'NOT_FOUND when none are set for that year. Admin, own team manager, or the member.',
  })
  async memberTargets(
    @Args() args: MemberTargetsArgs,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<TargetSet> {
    return toGraph(await targets.getMemberTargets(ctx, args.memberId, args.year));
  }

  @Mutation(() => TargetSet, {
    description: "Replaces that year's targets. Admin, or the member's manager.",
  })
  async setMemberTargets(
    @Arg('input', () => SetMemberTargetsInput) input: SetMemberTargetsInput,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<TargetSet> {
    return toGraph(
      await targets.setMemberTargets(ctx, {
        memberId: input.memberId,
        year: input.year,
        amounts: input.targets,
      }),
    );
  }
}
