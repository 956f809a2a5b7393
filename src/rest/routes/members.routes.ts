import type { AuthenticatedContext } from '../../context/request-context';
import { ErrorCode } from '../../errors';
import { decodeMemberCursor, encodeMemberCursor } from '../../services/member-cursor';
import * as members from '../../services/member.service';
import { envelopeSchema } from '../envelope-schema';
import {
  AttachMemberInput,
  CreateMemberBody,
  ListMembersQuery,
  MemberIdInput,
  UpdateMemberBody,
} from '../inputs/member.inputs';
import { ok, type RouteDefinition } from '../route-definition';
import { MEMBER_SCHEMA, toRestMember } from './member.view';
import { adminOrManager, EVERY_ROLE } from '../route-roles';

const TAG = 'Teams and members';

const createMemberRoute: RouteDefinition<CreateMemberBody> = {
  method: 'POST',
  path: '/teams/members',
  summary: 'Create a member (admin: any team; manager: own team, not admins)',
  tag: TAG,
  authenticated: true,
  roles: adminOrManager('A member may not create members; an admin or a manager may'),
  errors: [ErrorCode.NOT_FOUND, ErrorCode.CONFLICT],
  input: CreateMemberBody,
  response: envelopeSchema({ member: MEMBER_SCHEMA }, ['member']),
  handler: async (ctx, input) => {
    const member = await members.createMember(ctx, {
      firstname: input.firstname,
      lastname: input.lastname,
      email: input.email,
      role: input.role,
      teamId: input.memberOf.team_id,
    });
    return ok('Member created', { member: toRestMember(member) });
  },
};

const listMembersRoute: RouteDefinition<ListMembersQuery> = {
  method: 'GET',
  path: '/teams/members',
  cacheable: true,
  summary: 'List members, filtered by team_id and role, paginated with limit and cursor',
  tag: TAG,
  authenticated: true,
  roles: EVERY_ROLE,
  input: ListMembersQuery,
  response: envelopeSchema(
    { members: { type: 'array', items: MEMBER_SCHEMA }, next_cursor: { type: ['string', 'null'] } },
    ['members', 'next_cursor'],
  ),
  handler: async (ctx, input) => {
    const page = await members.listMembers(ctx, {
      teamId: input.team_id,
      role: input.role,
      limit: input.limit,
      afterId: input.cursor ? decodeMemberCursor(input.cursor, 'cursor') : null,
    });
    const last = page.members[page.members.length - 1];
    return ok(`${page.members.length} member(s) found`, {
      members: page.members.map(toRestMember),
      next_cursor: page.hasMore && last ? encodeMemberCursor(last._id) : null,
    });
  },
};

const getMemberRoute: RouteDefinition<MemberIdInput> = {
  method: 'GET',
  path: '/teams/members/:member_id',
  cacheable: true,
  summary: 'Read one member',
  tag: TAG,
  authenticated: true,
  roles: EVERY_ROLE,
  errors: [ErrorCode.NOT_FOUND],
  input: MemberIdInput,
  response: envelopeSchema({ member: MEMBER_SCHEMA }, ['member']),
  handler: async (ctx, input) =>
    ok('Member found', { member: toRestMember(await members.getMember(ctx, input.member_id)) }),
};

const attachMemberRoute: RouteDefinition<AttachMemberInput> = {
  method: 'POST',
  path: '/teams/members/:member_id',
  summary: 'Attach a member to a team',
  tag: TAG,
  authenticated: true,
  roles: adminOrManager('A member may not attach members; an admin or a manager may'),
  errors: [ErrorCode.NOT_FOUND],
  input: AttachMemberInput,
  response: envelopeSchema({ team_id: { type: 'string' } }, ['team_id']),
  handler: async (ctx, input) => {
    const member = await members.attachMember(ctx, input.member_id, input.team_id);
    return ok(`Member ${member._id} attached to team ${member.teamId}`, { team_id: member.teamId });
  },
};

const updateMemberRoute: RouteDefinition<UpdateMemberBody> = {
  method: 'PATCH',
  path: '/teams/members/:member_id',
  summary:
    "Change a member's role, names or e-mail (admin; manager: own team, never to or from admin)",
  tag: TAG,
  authenticated: true,
  roles: adminOrManager('A member may not change members; an admin or a manager may'),
  errors: [ErrorCode.NOT_FOUND, ErrorCode.CONFLICT],
  input: UpdateMemberBody,
  response: envelopeSchema({ member: MEMBER_SCHEMA }, ['member']),
  handler: async (ctx, input) => {
    const { member_id: memberId, ...changes } = input;
    const member = await members.updateMember(ctx, memberId, changes);
    return ok(`Member ${member._id} updated`, { member: toRestMember(member) });
  },
};

async function deleteHandler(ctx: AuthenticatedContext, input: MemberIdInput) {
  await members.deleteMember(ctx, input.member_id);
  return ok(`Member ${input.member_id} deleted`, {});
}

/** `DEL`/`DELETE /teams/members` with `member_id` in the body or the query (the server maps `DEL` to `DELETE`). */
const deleteMemberRoute: RouteDefinition<MemberIdInput> = {
  method: 'DELETE',
  path: '/teams/members',
  summary: 'Delete a member named by member_id (body or query), with its targets and tokens',
  tag: TAG,
  authenticated: true,
  roles: adminOrManager('A member may not delete members; an admin or a manager may'),
  errors: [ErrorCode.NOT_FOUND],
  input: MemberIdInput,
  response: envelopeSchema({}),
  handler: deleteHandler,
};

const deleteMemberByPathRoute: RouteDefinition<MemberIdInput> = {
  method: 'DELETE',
  path: '/teams/members/:member_id',
  summary: 'Delete a member, with its targets and tokens',
  tag: TAG,
  authenticated: true,
  roles: adminOrManager('A member may not delete members; an admin or a manager may'),
  errors: [ErrorCode.NOT_FOUND],
  input: MemberIdInput,
  response: envelopeSchema({}),
  handler: deleteHandler,
};

export const membersRoutes: RouteDefinition[] = [
  createMemberRoute,
  listMembersRoute,
  getMemberRoute,
  attachMemberRoute,
  updateMemberRoute,
  deleteMemberRoute,
  deleteMemberByPathRoute,
] as RouteDefinition[];
