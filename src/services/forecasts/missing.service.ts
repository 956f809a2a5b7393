import { Role } from '../../auth/role';
import type { AuthenticatedContext } from '../../context/request-context';
import { cadenceInterval, type ForecastCadence } from '../../domain/forecast-cadence';
import { callsByScope } from '../../domain/forecast-calls';
import { periodEnded } from '../../domain/forecast-period';
import { ConflictError } from '../../errors';
import type { MemberDoc } from '../../models/member.model';
import { canReadCallsOf } from './forecast-access';
import { mayReadTeamCall } from './forecast.service';
import { findForecastCadence } from './forecast-settings.service';
import { forecastClock, resolveForecastPeriod, type ForecastPeriod } from './forecast-time';

/** A call due in the current cadence interval that has not come. */
export interface MissingCall {
  /** `member:<id>` (the member's own call) or `team:<id>` (its manager's adjusted call). */
  scope: string;
  /** Who owes it. */
  memberId: string;
  teamId: string;
  role: Role;
  /** Their latest call for the period before this interval; null when they never made one. */
  lastSubmittedAt: Date | null;
}

export interface MissingCalls {
  period: ForecastPeriod;
  cadence: ForecastCadence;
  interval: { start: Date; end: Date };
  missing: MissingCall[];
}

/**
 * Who has not submitted a call for the period in the current cadence interval (GET
 * /forecasts/missing, `forecastMissing`): every member and manager their own call, every manager
 * their team's too. Admins see everyone, a manager their team (an admin in it aside), a member
 * themselves. 409 while the period or the cadence is not set, and for a period that has ended.
 */
export async function missingSubmissions(
  ctx: AuthenticatedContext,
  request: { period?: string | null },
): Promise<MissingCalls> {
  const clock = await forecastClock(ctx);
  const period = await resolveForecastPeriod(ctx, request.period, clock);
  const cadence = await findForecastCadence(ctx);
  if (!cadence)
    throw new ConflictError(
      'The forecast cadence is not set yet, so no call is due: an admin sets it with PUT /settings/forecast-cadence',
    );
  if (periodEnded(period.slot, clock))
    throw new ConflictError(
      `Period ${period.name} ended on ${period.slot.end}: no call is due for it any more`,
    );
  const interval = cadenceInterval(cadence, clock);
  const { principal } = ctx;
  let members: MemberDoc[];
  if (principal.role === Role.ADMIN) {
    const teams = await ctx.loaders.allTeams.load('all');
    members = (await ctx.loaders.membersByTeam.loadMany(teams.map((t) => t._id))).flatMap((m) => {
      if (m instanceof Error) throw m;
      return m;
    });
  } else if (principal.role === Role.MANAGER && principal.teamId !== null) {
    members = await ctx.loaders.membersByTeam.load(principal.teamId);
  } else {
    const self = principal.memberId ? await ctx.loaders.memberById.load(principal.memberId) : null;
    members = self ? [self] : [];
  }
  const calls = callsByScope(await ctx.loaders.forecastCalls.load(period.name));
  const missing: MissingCall[] = [];
  const check = (scope: string, member: MemberDoc) => {
    const made = calls.get(scope) ?? [];
    const last = made.at(-1);
    if (last && last.submittedAt.getTime() >= interval.start.getTime()) return;
    missing.push({
      scope,
      memberId: member._id,
      teamId: member.teamId,
      role: member.role,
      lastSubmittedAt: last?.submittedAt ?? null,
    });
  };
  for (const member of members) {
    if (member.role === Role.ADMIN || !canReadCallsOf(principal, member)) continue;
    check(`member:${member._id}`, member);
    if (member.role === Role.MANAGER && mayReadTeamCall(principal, member.teamId))
      check(`team:${member.teamId}`, member);
  }
  return { period, cadence, interval, missing };
}
