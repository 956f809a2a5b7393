import {
  Arg,
  Args,
  Ctx,
  FieldResolver,
  ID,
  Int,
  Mutation,
  Query,
  Resolver,
  Root,
} from 'type-graphql';
import type { AuthenticatedContext } from '../../context/request-context';
import { NotFoundError } from '../../errors';
import { decodeMemberCursor } from '../../services/member-cursor';
import * as members from '../../services/member.service';
import { findMemberTargets } from '../../services/target.service';
import { toPeriod } from '../settings/period.enum';
import { TargetSet } from '../target/target-set.type';
import { Team, toTeam } from '../team/team.type';
import { MemberConnection, toMemberConnection } from './member-connection.type';
import { CreateMemberInput, UpdateMemberInput } from './member.input';
import { MembersArgs } from './member.args';
import { Member, toMember } from './member.type';
import { pageComplexity } from '../../security/field-costs';

@Resolver(() => Member)
export class MemberResolver {
  @Query(() => Member, {
    nullable: true,
    description: 'The caller; null for the bootstrap admin token, which is no member.',
  })
  async me(@Ctx() ctx: AuthenticatedContext): Promise<Member | null> {
    const doc = await members.getMe(ctx);
    return doc ? toMember(doc) : null;
  }

  @Query(() => Member, { description: 'One member; NOT_FOUND when unknown.' })
  async member(@Arg('id', () => ID) id: string, @Ctx() ctx: AuthenticatedContext): Promise<Member> {
    return toMember(await members.getMember(ctx, id));
  }

  @Query(() => MemberConnection, {
    description: 'Members in stable order, filtered by team and role.',
    complexity: pageComplexity,
  })
  async members(
    @Args() args: MembersArgs,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<MemberConnection> {
    const page = await members.listMembers(ctx, {
      teamId: args.teamId,
      role: args.role,
      limit: args.first,
      afterId: args.after ? decodeMemberCursor(args.after, 'after') : null,
    });
    return toMemberConnection(page.members.map(toMember), page.hasMore);
  }

  @Mutation(() => Member, { description: 'Admin: any team; manager: own team, never an admin.' })
  async createMember(
    @Arg('input', () => CreateMemberInput) input: CreateMemberInput,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<Member> {
    return toMember(await members.createMember(ctx, input));
  }

  @Mutation(() => Member, { description: 'Moves a member to a team.' })
  async attachMember(
    @Arg('memberId', () => ID) memberId: string,
    @Arg('teamId', () => ID) teamId: string,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<Member> {
    return toMember(await members.attachMember(ctx, memberId, teamId));
  }

  @Mutation(() => Member, {
    description:
      "Changes a member's names, e-mail or role. Admin: anyone; manager: own team, never to or from admin.",
  })
  async updateMember(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateMemberInput) input: UpdateMemberInput,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<Member> {
    return toMember(
      await members.updateMember(ctx, id, {
        firstname: input.firstname,
        lastname: input.lastname,
        email: input.email,
        role: input.role,
      }),
    );
  }

  @Mutation(() => ID, {
    description:
      'Deletes a member, its targets and its tokens (and the tokens it issued); answers the deleted id.',
  })
  async deleteMember(
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<string> {
    await members.deleteMember(ctx, id);
    return id;
  }

  @FieldResolver(() => Team)
  async team(@Root() member: Member, @Ctx() ctx: AuthenticatedContext): Promise<Team> {
    const team = await ctx.loaders.teamById.load(member.teamId);
    // Teams are never deleted, so this means the data is inconsistent: say which reference broke.
    if (!team) throw new NotFoundError(`Team ${member.teamId} of member ${member.id} not found`);
    return toTeam(team);
  }

  @FieldResolver(() => TargetSet, {
    nullable: true,
    description:
      'Targets for `year` (default: the current UTC year); null when none are set. Admin, own team manager, or the member.',
  })
  async targets(
    @Root() member: Member,
    @Arg('year', () => Int, { nullable: true }) year: number | null,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<TargetSet | null> {
    const set = await findMemberTargets(ctx, member.id, year);
    return set && { ...set, period: toPeriod(set.period) };
  }
}
