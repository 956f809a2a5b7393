import { ArgsType } from 'type-graphql';
import { MemberPageArgs } from '../member/member.args';

/** `Team.members(role, first, after)`: the page arguments of `members`, the team being the parent. */
@ArgsType()
export class TeamMembersArgs extends MemberPageArgs {}
