import { randomUUID } from 'node:crypto';
import { trusted, type Model } from 'mongoose';
import type { Role } from '../auth/role';
import type { AuthenticatedContext } from '../context/request-context';
import { EmailAddressResolver } from 'graphql-scalars';
import { BadUserInputError, ConflictError, NotFoundError } from '../errors';
import { MemberDoc, MemberModel } from '../models/member.model';
import { CrmOwnerLinkModel } from '../models/crm-owner-link.model';
import { TargetModel } from '../models/target.model';
import { isDuplicateKeyError } from './duplicate-key';
import { assertCanAttachTo, assertCanCreateMember, assertCanManageMember } from './member-access';
import { assertTeamExists } from './team.service';
import { memberCreated, memberDeleted, memberUpdated } from '../events/change-events';
import { deleteWithEvent } from '../events/outbox/deletion-event';
import { pushEvents, withEvents } from '../events/outbox/outbox-entry';

export interface CreateMemberInput {
  firstname: string;
  lastname: string;
  email: string;
  role: Role;
  teamId: string;
}

export interface ListMembersInput {
  teamId?: string | null;
  role?: Role | null;
  /** 1–100 (validated by the input classes). */
  limit: number;
  /** Decoded cursor: list members whose id sorts after this one. */
  afterId?: string | null;
}

export interface MemberPage {
  members: MemberDoc[];
  /** Whether a further page exists; its cursor points after the last member of this one. */
  hasMore: boolean;
}

/**
 * Reads one member or throws 404. Every role may read members. Through the request's loader:
 * kept across requests while the members' version stands.
 */
export async function getMember(ctx: AuthenticatedContext, memberId: string): Promise<MemberDoc> {
  const member = await ctx.loaders.memberById.load(memberId);
  if (!member) throw new NotFoundError(`Member ${memberId} not found`);
  return member;
}

/**
 * Members in `_id` order (stable, and served by the `_id` / `{teamId, _id}` indexes), filtered by
 * team and role, one page at a time: the page is read with one extra document to learn whether
 * another page follows.
 */
export async function listMembers(
  _ctx: AuthenticatedContext,
  input: ListMembersInput,
): Promise<MemberPage> {
  const filter: Record<string, unknown> = {};
  if (input.teamId) filter.teamId = input.teamId;
  if (input.role) filter.role = input.role;
  // trusted(): the operator is ours, not client input (filters are sanitised globally).
  if (input.afterId) filter._id = trusted({ $gt: input.afterId });
  const found = await MemberModel.find(filter)
    .sort({ _id: 1 })
    .limit(input.limit + 1)
    .lean<MemberDoc[]>()
    .exec();
  return { members: found.slice(0, input.limit), hasMore: found.length > input.limit };
}

/**
 * The graph exposes `Member.email` as the EmailAddress scalar, which refuses some addresses the
 * input rule lets through (non-ASCII local parts, quoted local parts). A member stored with one
 * could never be read over GraphQL, so such addresses are refused here, for both transports.
 */
function assertEmailReadable(email: string): void {
  try {
    EmailAddressResolver.serialize(email);
  } catch {
    const message = 'must be a plain ASCII e-mail address such as ada@example.com';
    throw new BadUserInputError(`Invalid email: ${message}, got "${email.slice(0, 40)}"`, [
      { field: 'email', message },
    ]);
  }
}

/**
 * Creates a member. Order of checks: role table (403), team exists (404), e-mail free (409, decided
 * by the unique index on the lower-cased e-mail, so it holds under concurrent creates too; a member
 * an uncommitted import is creating holds its e-mail as well).
 */
export async function createMember(
  ctx: AuthenticatedContext,
  input: CreateMemberInput,
): Promise<MemberDoc> {
  assertEmailReadable(input.email);
  assertCanCreateMember(ctx.principal, input.role, input.teamId);
  await assertTeamExists(input.teamId);
  try {
    const fields = {
      _id: randomUUID(),
      firstname: input.firstname,
      lastname: input.lastname,
      email: input.email,
      emailLower: input.email.toLowerCase(),
      role: input.role,
      teamId: input.teamId,
    };
    const created = await MemberModel.create({ ...fields, ...withEvents(memberCreated(fields)) });
    return created.toObject<MemberDoc>();
  } catch (error) {
    if (!isDuplicateKeyError(error, 'emailLower')) throw error;
    if (await MemberModel.exists({ emailLower: input.email.toLowerCase() }).exec()) {
      throw new ConflictError(
        `A member with e-mail ${input.email} already exists (e-mails are compared case-insensitively)`,
      );
    }
    // Held by a member an import is creating: it shows up once the import commits, or the e-mail is free again.
    throw new ConflictError(
      `A member with e-mail ${input.email} is being created by a CRM import that has not committed yet; try again once it has`,
    );
  }
}

/** Moves a member to another team. 404 for an unknown member or team; see member-access for managers. */
export async function attachMember(
  ctx: AuthenticatedContext,
  memberId: string,
  teamId: string,
): Promise<MemberDoc> {
  const member = await getMember(ctx, memberId);
  assertCanManageMember(ctx.principal, member, 'attach');
  assertCanAttachTo(ctx.principal, teamId);
  await assertTeamExists(teamId);
  const changes = { team_id: { from: member.teamId, to: teamId } };
  const { matchedCount } = await MemberModel.updateOne(
    { _id: memberId },
    {
      $set: { teamId },
      ...pushEvents(memberUpdated({ ...member, teamId }, changes, member.teamId)),
    },
  ).exec();
  // Deleted between the read and the update.
  if (matchedCount === 0) throw new NotFoundError(`Member ${memberId} not found`);
  return { ...member, teamId };
}

/**
 * Deletes a member, its targets and its CRM owner links (a later import then matches the owner
 * afresh instead of pointing at a member that is gone). The member goes first: if the targets' deletion then fails,
 * what is left are targets nobody can reach (every read goes through the member), never a member
 * whose targets silently vanished.
 */
export async function deleteMember(ctx: AuthenticatedContext, memberId: string): Promise<void> {
  const member = await getMember(ctx, memberId);
  assertCanManageMember(ctx.principal, member, 'delete');
  const { deletedCount } = await deleteWithEvent(
    MemberModel as unknown as Model<never>,
    memberId,
    memberDeleted(member),
    () => MemberModel.deleteOne({ _id: memberId }).exec(),
  );
  if (deletedCount === 0) throw new NotFoundError(`Member ${memberId} not found`);
  await TargetModel.deleteMany({ memberId }).exec();
  await CrmOwnerLinkModel.deleteMany({ memberId }).exec();
}

/** The caller's own member record; null for the bootstrap admin token, which is no member. */
export async function getMe(ctx: AuthenticatedContext): Promise<MemberDoc | null> {
  if (!ctx.principal.memberId) return null;
  return ctx.loaders.memberById.load(ctx.principal.memberId);
}
