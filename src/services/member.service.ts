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
import {
  assertCanAttachTo,
  assertCanCreateMember,
  assertCanManageMember,
  assertCanUpdateMember,
} from './member-access';
import { assertTeamExists } from './team.service';
import { memberCreated, memberDeleted, memberUpdated } from '../events/change-events';
import { deleteWithEvent } from '../events/outbox/deletion-event';
import { pushEvents, withEvents } from '../events/outbox/outbox-entry';
import { revokeTokensOf } from './token-revocation';

export interface CreateMemberInput {
  firstname: string;
  lastname: string;
  email: string;
  role: Role;
  teamId: string;
}

/** The fields `PATCH /teams/members/{member_id}` and `updateMember` may change; at least one. */
export interface UpdateMemberInput {
  firstname?: string;
  lastname?: string;
  email?: string;
  role?: Role;
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
    throw await emailConflictOr(error, input.email);
  }
}

/** The 409 for a write refused by the unique e-mail index, else `error` itself. */
async function emailConflictOr(error: unknown, email: string): Promise<unknown> {
  if (!isDuplicateKeyError(error, 'emailLower')) return error;
  if (await MemberModel.exists({ emailLower: email.toLowerCase() }).exec()) {
    return new ConflictError(
      `A member with e-mail ${email} already exists (e-mails are compared case-insensitively)`,
    );
  }
  // Held by a member an import is creating: it shows up once the import commits, or the e-mail is free again.
  return new ConflictError(
    `A member with e-mail ${email} is being created by a CRM import that has not committed yet; try again once it has`,
  );
}

/**
 * Changes a member's names, e-mail or role. Order of checks: something to change (400), member
 * exists (404), role table (403), e-mail free (409, the unique index decides, as for creation).
 * Authentication reads the role from the member document through a cache checked against the
 * `members` version of each request, so a role change counts from the next request on, on every
 * instance, for tokens issued before it too.
 */
export async function updateMember(
  ctx: AuthenticatedContext,
  memberId: string,
  input: UpdateMemberInput,
): Promise<MemberDoc> {
  const changes: Partial<MemberDoc> = {};
  if (input.firstname !== undefined) changes.firstname = input.firstname;
  if (input.lastname !== undefined) changes.lastname = input.lastname;
  if (input.role !== undefined) changes.role = input.role;
  if (input.email !== undefined) {
    assertEmailReadable(input.email);
    changes.email = input.email;
    changes.emailLower = input.email.toLowerCase();
  }
  if (Object.keys(changes).length === 0) {
    const message = 'nothing to change: send at least one of role, firstname, lastname, email';
    throw new BadUserInputError(`Invalid input: ${message}`, [{ field: '(body)', message }]);
  }
  const member = await getMember(ctx, memberId);
  assertCanUpdateMember(ctx.principal, member, input.role);
  const diff: Record<string, { from: unknown; to: unknown }> = {};
  for (const field of ['firstname', 'lastname', 'email', 'role'] as const) {
    if (changes[field] !== undefined && changes[field] !== member[field])
      diff[field] = { from: member[field], to: changes[field] };
  }
  let updated: MemberDoc | null;
  try {
    updated = await MemberModel.findOneAndUpdate(
      { _id: memberId },
      {
        $set: changes,
        // A change that changes nothing is no event.
        ...(Object.keys(diff).length > 0
          ? pushEvents(memberUpdated({ ...member, ...changes }, diff))
          : {}),
      },
      { returnDocument: 'after' },
    )
      .lean<MemberDoc>()
      .exec();
  } catch (error) {
    throw input.email === undefined ? error : await emailConflictOr(error, input.email);
  }
  // Deleted between the read and the update.
  if (!updated) throw new NotFoundError(`Member ${memberId} not found`);
  return updated;
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
 * afresh instead of pointing at a member that is gone), and revokes the member's tokens and the
 * tokens it issued (token-revocation.ts). The member goes before its targets: if the targets'
 * deletion then fails, what is left are targets nobody can reach (every read goes through the
 * member), never a member whose targets silently vanished. The tokens are revoked before, so that
 * a failure after the member went cannot leave them live with nothing left to delete; and again
 * after, for a token the member was issuing while it went (token.service.ts checks the issuer
 * once the token is recorded: recorded before this revocation, it is revoked here; after, the
 * member was already gone and that check refuses it).
 */
export async function deleteMember(ctx: AuthenticatedContext, memberId: string): Promise<void> {
  const member = await getMember(ctx, memberId);
  assertCanManageMember(ctx.principal, member, 'delete');
  await revokeTokensOf(memberId);
  const { deletedCount } = await deleteWithEvent(
    MemberModel as unknown as Model<never>,
    memberId,
    memberDeleted(member),
    () => MemberModel.deleteOne({ _id: memberId }).exec(),
  );
  if (deletedCount === 0) throw new NotFoundError(`Member ${memberId} not found`);
  await revokeTokensOf(memberId);
  await TargetModel.deleteMany({ memberId }).exec();
  await CrmOwnerLinkModel.deleteMany({ memberId }).exec();
}

/** The caller's own member record; null for the bootstrap admin token, which is no member. */
export async function getMe(ctx: AuthenticatedContext): Promise<MemberDoc | null> {
  if (!ctx.principal.memberId) return null;
  return ctx.loaders.memberById.load(ctx.principal.memberId);
}
