import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { AuthenticatedContext } from '../../context/request-context';
import { listDefinitions } from '../../services/pipeline.service';
import { Member, toMember } from '../member/member.type';
import { Team, toTeam } from '../team/team.type';
import { Opportunity } from './opportunity.type';
import { Stage } from './stage.type';

@Resolver(() => Opportunity)
export class OpportunityResolver {
  @FieldResolver(() => Stage)
  async stage(@Root() opportunity: Opportunity, @Ctx() ctx: AuthenticatedContext): Promise<Stage> {
    const definition = (await listDefinitions(ctx, opportunity.snapshotId)).find(
      (d) => d.id === opportunity.definitionId,
    );
    const stage = definition?.stages.find((s) => s.id === opportunity.stageId);
    // The import stores only opportunities whose stage is in their definition.
    if (!stage)
      throw new Error(
        `stage ${opportunity.stageId} of opportunity ${opportunity.id} missing in snapshot ${opportunity.snapshotId}`,
      );
    return stage;
  }

  @FieldResolver(() => Member, {
    nullable: true,
    description: 'The owner, when the CRM owner maps to a member.',
  })
  async member(
    @Root() opportunity: Opportunity,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<Member | null> {
    const member = opportunity.memberId
      ? await ctx.loaders.memberById.load(opportunity.memberId)
      : null;
    return member ? toMember(member) : null;
  }

  @FieldResolver(() => Team, { nullable: true })
  async team(
    @Root() opportunity: Opportunity,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<Team | null> {
    const team = opportunity.teamId ? await ctx.loaders.teamById.load(opportunity.teamId) : null;
    return team ? toTeam(team) : null;
  }
}
