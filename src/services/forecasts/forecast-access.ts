import type { Principal } from '../../auth/principal';
import { Role } from '../../auth/role';
import type { AuthenticatedContext } from '../../context/request-context';
import { parseScopeName, type ForecastScope } from '../../domain/forecast-calls';
import { BadUserInputError, ForbiddenError, NotFoundError } from '../../errors';
import type { MemberDoc } from '../../models/member.model';
import type { TeamDoc } from '../../models/team.model';

/**
 * The forecasts' rows of the role table (docs/api.md), in one place for both transports:
 *
 * | operation | admin | manager | member |
 * |---|---|---|---|
 * | read a forecast, its calls, its accuracy | every scope | own team, its members (an admin's calls withheld) | own only |
 * | submit a call | every scope | own call, own team's adjusted call | own call |
 *
 * A manager never reads an admin's own calls, even when the admin is in the manager's team (as a
 * manager never sets an admin's targets); the admin's deals still count in the team's figures,
 * which every role may read as pipeline metrics. Targets follow the targets' rule (member-access.ts).
 */

/** A scope resolved: what it names, found. */
export type ResolvedScope =
  { kind: 'company' } | { kind: 'team'; team: TeamDoc } | { kind: 'member'; member: MemberDoc };

/** `scope` as sent, or 400 naming the field and the forms it takes. */
export function parseScope(raw: string, field = 'scope'): ForecastScope {
  const scope = parseScopeName(raw);
  if (scope) return scope;
  const message = `must be company, team:<team_id> or member:<member_id>, got "${raw.slice(0, 60)}"`;
  throw new BadUserInputError(`Invalid ${field}: ${message}`, [{ field, message }]);
}

/** The scope a caller means when they name none: their own (admin: the company). */
export function defaultScope(principal: Principal): ForecastScope {
  if (principal.role === Role.ADMIN || principal.memberId === null) return { kind: 'company' };
  if (principal.role === Role.MANAGER && principal.teamId !== null)
    return { kind: 'team', teamId: principal.teamId };
  return { kind: 'member', memberId: principal.memberId };
}

/** The team or member a scope names; 404 when there is none. */
export async function resolveScope(
  ctx: AuthenticatedContext,
  scope: ForecastScope,
): Promise<ResolvedScope> {
  switch (scope.kind) {
    case 'company':
      return scope;
    case 'team': {
      const team = await ctx.loaders.teamById.load(scope.teamId);
      if (!team) throw new NotFoundError(`Team ${scope.teamId} not found`);
      return { kind: 'team', team };
    }
    case 'member': {
      const member = await ctx.loaders.memberById.load(scope.memberId);
      if (!member) throw new NotFoundError(`Member ${scope.memberId} not found`);
      return { kind: 'member', member };
    }
  }
}

function managesTeam(principal: Principal, teamId: string): boolean {
  return principal.role === Role.MANAGER && principal.teamId === teamId;
}

/** Whether `principal` may read `member`'s own calls: themselves, an admin, their manager unless they are an admin. */
export function canReadCallsOf(
  principal: Principal,
  member: Pick<MemberDoc, '_id' | 'teamId' | 'role'>,
): boolean {
  if (principal.role === Role.ADMIN) return true;
  if (principal.memberId !== null && principal.memberId === member._id) return true;
  return managesTeam(principal, member.teamId) && member.role !== Role.ADMIN;
}

/** 403 unless `principal` may read the forecast of `scope` (what `verb` says it is doing). */
export function assertCanReadScope(principal: Principal, scope: ResolvedScope, verb: string): void {
  switch (scope.kind) {
    case 'company':
      if (principal.role === Role.ADMIN) return;
      throw new ForbiddenError(
        `Only an admin may ${verb} the company's forecast; ${ownScopes(principal)}`,
      );
    case 'team':
      if (principal.role === Role.ADMIN || managesTeam(principal, scope.team._id)) return;
      throw new ForbiddenError(
        `${callerName(principal)} may not ${verb} the forecast of team ${scope.team._id}; ${ownScopes(principal)}`,
      );
    case 'member':
      if (canReadCallsOf(principal, scope.member)) return;
      throw new ForbiddenError(
        `${callerName(principal)} may not ${verb} the forecast of member ${scope.member._id}${
          principal.role === Role.MANAGER && scope.member.teamId === principal.teamId
            ? ', an admin'
            : ''
        }; ${ownScopes(principal)}`,
      );
  }
}

/** 403 unless `principal` may submit a call for `scope`. */
export function assertCanSubmit(principal: Principal, scope: ResolvedScope): void {
  if (principal.role === Role.ADMIN) return;
  switch (scope.kind) {
    case 'company':
      throw new ForbiddenError(
        `Only an admin may submit the company's call; ${ownSubmissions(principal)}`,
      );
    case 'team':
      if (managesTeam(principal, scope.team._id)) return;
      throw new ForbiddenError(
        `${callerName(principal)} may not submit a call for team ${scope.team._id}; ${ownSubmissions(principal)}`,
      );
    case 'member':
      if (principal.memberId === scope.member._id) return;
      throw new ForbiddenError(
        `${callerName(principal)} may not submit a call for member ${scope.member._id}: a member's call is their own; ${ownSubmissions(principal)}`,
      );
  }
}

function callerName(principal: Principal): string {
  return principal.role === Role.MANAGER
    ? `A manager of team ${principal.teamId ?? '(none)'}`
    : `Member ${principal.memberId ?? principal.subject}`;
}

function ownScopes(principal: Principal): string {
  return principal.role === Role.MANAGER
    ? `a manager reads their own team's (team:${principal.teamId ?? ''}) and its members'`
    : `a member reads their own (member:${principal.memberId ?? ''})`;
}

function ownSubmissions(principal: Principal): string {
  return principal.role === Role.MANAGER
    ? `a manager submits their own call and their team's adjusted call (team:${principal.teamId ?? ''})`
    : `a member submits their own call (member:${principal.memberId ?? ''})`;
}
