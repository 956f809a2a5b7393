import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { AuthenticatedContext } from '../../context/request-context';
import { decodeMemberCursor } from '../../services/member-cursor';
import * as teams from '../../services/team.service';
import { MemberConnection, toMemberConnection } from '../member/member-connection.type';
import { toMember } from '../member/member.type';
import { TeamMembersArgs } from './team-members.args';
import { CreateTeamInput } from './team.input';
import { Team, toTeam } from './team.type';
import { listComplexity, pageComplexity } from '../../security/field-costs';

@Resolver(() => Team)
export class TeamResolver {
  @Query(() => [Team], { description: 'Every team, in id order.', complexity: listComplexity })
  async teams(@Ctx() ctx: AuthenticatedContext): Promise<Team[]> {
    return (await teams.listTeams(ctx)).map(toTeam);
  }

  @Query(() => Team, { description: 'One team; NOT_FOUND when unknown.' })
  async team(@Arg('id', () => ID) id: string, @Ctx() ctx: AuthenticatedContext): Promise<Team> {
    return toTeam(await teams.getTeam(ctx, id));
  }

  @Mutation(() => Team, { description: 'Admin only; a taken id is a CONFLICT.' })
  async createTeam(
    @Arg('input', () => CreateTeamInput) input: CreateTeamInput,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<Team> {
    return toTeam(await teams.createTeam(ctx, { teamId: input.id, name: input.name }));
  }

  /**
   * The team's members, in the same order and with the same cursors as `members(teamId:)`. All
   * teams of a query load their members in one batch (membersByTeam); the page is then cut from
   * the team's list, since a team is small and a per-team query would defeat the batch.
   */
  @FieldResolver(() => MemberConnection, { complexity: pageComplexity })
  async members(
    @Root() team: Team,
    @Args() args: TeamMembersArgs,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<MemberConnection> {
    const afterId = args.after ? decodeMemberCursor(args.after, 'after') : null;
    const all = await ctx.loaders.membersByTeam.load(team.id);
    // Their fields (targets, team) look each member up by id: the same documents, read already.
    for (const member of all) ctx.loaders.memberById.prime(member._id, member);
    const matching = all.filter(
      (m) => (!args.role || m.role === args.role) && (!afterId || m._id > afterId),
    );
    return toMemberConnection(
      matching.slice(0, args.first).map(toMember),
      matching.length > args.first,
    );
  }
}
