import { Role } from '../../auth/role';
import type { AuthenticatedContext } from '../../context/request-context';
import { cadencePointsBetween, type ForecastCadence } from '../../domain/forecast-cadence';
import { callsByScope, lastCallBefore, type ForecastCall } from '../../domain/forecast-calls';
import { periodEnded } from '../../domain/forecast-period';
import { ConflictError } from '../../errors';
import { SETTINGS_ID } from '../../models/settings.model';
import { canReadCallsOf } from './forecast-access';
import {
  forecastFrame,
  forecastPopulation,
  mayReadTeamCall,
  nameOf,
  sumPipelines,
  type ForecastRequest,
} from './forecast.service';
import { findForecastCadence } from './forecast-settings.service';
import type { ForecastPeriod } from './forecast-time';

/** The call that stood at one cadence point, against what was won. */
export interface StandingCall {
  cadencePoint: Date;
  submittedAt: Date;
  call: number;
  /** (call − actual) ÷ actual × 100, 2 decimals; null when nothing was won. */
  errorPct: number | null;
}

export interface AccuracyRow {
  /** Won in the period, by the latest snapshot. */
  actual: number;
  /** One entry per cadence point at which a call stood, oldest first. */
  submissions: StandingCall[];
}

export interface ForecastAccuracy {
  period: ForecastPeriod;
  currency: string | null;
  scope: string;
  cadence: ForecastCadence | null;
  /** The cadence points inside the period, then its end. */
  points: Date[];
  rollup: AccuracyRow;
  members: Array<AccuracyRow & { memberId: string; teamId: string | null }>;
  teams: Array<AccuracyRow & { teamId: string }>;
}

function round2(value: number): number {
  return Math.round((value + Number.EPSILON) * 100) / 100;
}

/** The calls of one scope that stood at each point, against `actual`. */
function standing(
  calls: readonly ForecastCall[],
  points: readonly Date[],
  actual: number,
): StandingCall[] {
  const out: StandingCall[] = [];
  for (const point of points) {
    const call = lastCallBefore(calls, point);
    if (!call) continue;
    out.push({
      cadencePoint: point,
      submittedAt: call.submittedAt,
      call: call.call,
      errorPct: actual === 0 ? null : round2(((call.call - actual) / actual) * 100),
    });
  }
  return out;
}

/**
 * How the calls of an ended period compare with what was won (GET /forecasts/accuracy,
 * `forecastAccuracy`): per member, team and the scope, the last call made before each cadence
 * point inside the period and before its end. The forecast's reading rights; 409 while the period
 * has not ended.
 */
export async function getAccuracy(
  ctx: AuthenticatedContext,
  request: ForecastRequest,
): Promise<ForecastAccuracy> {
  const { scope, period, clock } = await forecastFrame(ctx, request, 'read');
  if (!periodEnded(period.slot, clock))
    throw new ConflictError(
      `Period ${period.name} has not ended yet (it ends on ${period.slot.end}): accuracy is for ended periods; GET /forecasts shows where it stands`,
    );
  const population = await forecastPopulation(ctx, scope);
  const cadence = await findForecastCadence(ctx);
  const points = [
    ...(cadence ? cadencePointsBetween(cadence, period.slot.startsAt, period.slot.endsBefore) : []),
    period.slot.endsBefore,
  ];
  const calls = callsByScope(await ctx.loaders.forecastCalls.load(period.name));
  const settings = await ctx.loaders.metricSettings.load(SETTINGS_ID);
  const { principal } = ctx;
  const rowOf = (
    pipelines: readonly string[],
    scopeCalls: readonly ForecastCall[],
  ): AccuracyRow => {
    const actual = round2(sumPipelines(population, pipelines, period).closed);
    return { actual, submissions: standing(scopeCalls, points, actual) };
  };

  const members = [...population.members]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([memberId, { doc, teamId }]) => {
      const readable = doc ? canReadCallsOf(principal, doc) : principal.role === Role.ADMIN;
      return {
        memberId,
        teamId,
        ...rowOf(
          population.memberPipelines.get(memberId) ?? [],
          readable ? (calls.get(`member:${memberId}`) ?? []) : [],
        ),
      };
    });
  const teams = population.teamIds.map((teamId) => ({
    teamId,
    ...rowOf(
      population.teamPipelines.get(teamId) ?? [],
      mayReadTeamCall(principal, teamId) ? (calls.get(`team:${teamId}`) ?? []) : [],
    ),
  }));
  const name = nameOf(scope);
  return {
    period,
    currency: settings.currency,
    scope: name,
    cadence,
    points,
    rollup: rowOf(population.scopePipelines, calls.get(name) ?? []),
    members,
    teams,
  };
}
