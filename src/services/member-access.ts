import type { Principal } from '../auth/principal';
import { Role } from '../auth/role';
import { ForbiddenError } from '../errors';

/**
 * The members half of the contract's role table, in one place so every service (and both
 * transports) applies the same rules.
 *
 * | operation | admin | manager | member |
 * |---|---|---|---|
 * | settings, teams (write) | yes | no | no |
 * | create, attach, delete members | yes | own team only, never admins | no |
 * | change a member's names, e-mail, role | yes | own team only, never to or from admin | no |
 * | set targets | yes | members of own team, not their own nor an admin's | no |
 * | read targets | yes | own team | own only |
 *
 * Decision (the contract leaves it open): a manager may create `member`s and `manager`s of their
 * own team, but never an `admin` (that would let a manager escalate); likewise a manager may not
 * attach or delete an admin, even one placed in their team. Attaching moves a member between
 * teams: a manager may only move members of their own team, and only into their own team, so a
 * manager can neither take members from another team nor hand one over to it.
 */

/** The subject of a principal, for messages: `member 3f2c…` or `the admin token`. */
function who(principal: Principal): string {
  return principal.memberId
    ? `${principal.role} ${principal.memberId}`
    : `the ${principal.subject}`;
}

export function requireAdmin(principal: Principal, action: string): void {
  if (principal.role !== Role.ADMIN) {
    throw new ForbiddenError(`Only an admin may ${action}; the caller is a ${principal.role}`);
  }
}

/** True when the principal is a manager acting inside `teamId`. */
function managesTeam(principal: Principal, teamId: string): boolean {
  return (
    principal.role === Role.MANAGER && principal.teamId !== null && principal.teamId === teamId
  );
}

/** Create a member with `role` in `teamId`. */
export function assertCanCreateMember(principal: Principal, role: Role, teamId: string): void {
  if (principal.role === Role.ADMIN) return;
  if (principal.role === Role.MEMBER)
    throw new ForbiddenError('A member may not create members; an admin or a manager may');
  if (role === Role.ADMIN)
    throw new ForbiddenError('A manager may not create an admin; only an admin may');
  if (!managesTeam(principal, teamId)) {
    throw new ForbiddenError(
      `A manager may only create members of their own team ${principal.teamId ?? '(none)'}, not of team ${teamId}`,
    );
  }
}

/** Attach or delete `member` (its current team and role decide). */
export function assertCanManageMember(
  principal: Principal,
  member: { _id: string; role: Role; teamId: string },
  action: 'attach' | 'delete',
): void {
  if (principal.role === Role.ADMIN) return;
  if (principal.role === Role.MEMBER)
    throw new ForbiddenError(`A member may not ${action} members; an admin or a manager may`);
  if (!managesTeam(principal, member.teamId)) {
    throw new ForbiddenError(
      `A manager may only ${action} members of their own team ${principal.teamId ?? '(none)'}; member ${member._id} is in team ${member.teamId}`,
    );
  }
  if (member.role === Role.ADMIN)
    throw new ForbiddenError(`A manager may not ${action} an admin; only an admin may`);
}

/**
 * Change `member`'s names, e-mail or role (`role` when the change sets one). A manager changes
 * members of their own team, themselves included, but never an admin's record and never makes
 * anyone an admin: either would let a manager act on, or grant, more than they hold.
 */
export function assertCanUpdateMember(
  principal: Principal,
  member: { _id: string; role: Role; teamId: string },
  role: Role | undefined,
): void {
  if (principal.role === Role.ADMIN) return;
  if (principal.role === Role.MEMBER)
    throw new ForbiddenError('A member may not change members; an admin or a manager may');
  if (!managesTeam(principal, member.teamId)) {
    throw new ForbiddenError(
      `A manager may only change members of their own team ${principal.teamId ?? '(none)'}; member ${member._id} is in team ${member.teamId}`,
    );
  }
  if (member.role === Role.ADMIN)
    throw new ForbiddenError("A manager may not change an admin's record; only an admin may");
  if (role === Role.ADMIN)
    throw new ForbiddenError('A manager may not make a member an admin; only an admin may');
}

/** The destination of an attach, once the member itself may be managed. */
export function assertCanAttachTo(principal: Principal, teamId: string): void {
  if (principal.role === Role.ADMIN) return;
  if (!managesTeam(principal, teamId)) {
    throw new ForbiddenError(
      `A manager may only attach members to their own team ${principal.teamId ?? '(none)'}, not to team ${teamId}`,
    );
  }
}

/**
 * Set `member`'s targets. A manager sets those of the members of their own team, but neither their
 * own (nobody sets their own quota) nor an admin's (as attach and delete refuse admins).
 */
export function assertCanSetTargets(
  principal: Principal,
  member: { _id: string; teamId: string; role: Role },
): void {
  if (principal.role === Role.ADMIN) return;
  if (principal.role === Role.MEMBER)
    throw new ForbiddenError(`A member may not set targets; an admin or the member's manager may`);
  if (!managesTeam(principal, member.teamId)) {
    throw new ForbiddenError(
      `A manager may only set targets of members of their own team ${principal.teamId ?? '(none)'}; member ${member._id} is in team ${member.teamId}`,
    );
  }
  if (member._id === principal.memberId)
    throw new ForbiddenError('A manager may not set their own targets; an admin may');
  if (member.role === Role.ADMIN)
    throw new ForbiddenError("A manager may not set an admin's targets; only an admin may");
}

export function canReadTargets(
  principal: Principal,
  member: { _id: string; teamId: string },
): boolean {
  return (
    principal.role === Role.ADMIN ||
    managesTeam(principal, member.teamId) ||
    (principal.memberId !== null && principal.memberId === member._id)
  );
}

export function assertCanReadTargets(
  principal: Principal,
  member: { _id: string; teamId: string },
): void {
  if (canReadTargets(principal, member)) return;
  throw new ForbiddenError(
    principal.role === Role.MANAGER
      ? `A manager may only read targets of their own team ${principal.teamId ?? '(none)'}; member ${member._id} is in team ${member.teamId}`
      : `${who(principal)} may only read their own targets, not those of member ${member._id}`,
  );
}
