import { Role } from '../../auth/role';
import type { AuthenticatedContext } from '../../context/request-context';
import {
  compareCalls,
  scopeName,
  type ForecastCall,
  type ForecastScope,
} from '../../domain/forecast-calls';
import { periodEnded } from '../../domain/forecast-period';
import { BadUserInputError, ConflictError, type FieldError } from '../../errors';
import { callOf } from '../../loaders/forecast.loaders';
import { forecastSubmitted } from '../../events/change-events';
import { withEvents } from '../../events/outbox/outbox-entry';
import { ForecastSubmissionModel } from '../../models/forecast-submission.model';
import { describeValue } from '../../validation/describe-value';
import { decodeCursor, encodeCursor, invalidCursor } from '../pipeline-cursor';
import { assertCanSubmit, canReadCallsOf, parseScope, resolveScope } from './forecast-access';
import { forecastFrame, mayReadTeamCall, nameOf } from './forecast.service';
import { forecastClock, resolveForecastPeriod } from './forecast-time';

/** The longest note a call may carry. */
export const MAX_NOTE_LENGTH = 1000;

/** Calls and best cases: amounts in the configured currency, 0 or more. */
const MAX_AMOUNT = 1e15;

export interface SubmitForecastInput {
  period: string;
  call: number;
  bestCase?: number | null;
  note?: string | null;
  /** Default: the company for an admin, else the caller's own call. */
  scope?: string | null;
}

function checkAmount(value: unknown, field: string, errors: FieldError[]): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_AMOUNT)
    errors.push({
      field,
      message: `must be an amount from 0 to ${MAX_AMOUNT}, got ${describeValue(value)}`,
    });
}

/**
 * Submits a forecast call (POST /forecasts/submissions, `submitForecast`): a member's own, a
 * manager's adjusted call for their team (`team:<id>`), an admin's for the company (or any
 * scope). Every call is kept; the latest of a period and scope counts. Dated by the forecast
 * clock. 400 bad input; 409 period not set, or a period that has ended; 404 unknown member or
 * team; 403 a scope the caller may not submit for.
 */
export async function submitForecast(
  ctx: AuthenticatedContext,
  input: SubmitForecastInput,
): Promise<ForecastCall> {
  const errors: FieldError[] = [];
  checkAmount(input.call, 'call', errors);
  if (input.bestCase !== undefined && input.bestCase !== null)
    checkAmount(input.bestCase, 'best_case', errors);
  if (
    input.note !== undefined &&
    input.note !== null &&
    (typeof input.note !== 'string' || input.note.length > MAX_NOTE_LENGTH)
  )
    errors.push({
      field: 'note',
      message: `must be text of at most ${MAX_NOTE_LENGTH} characters`,
    });
  if (errors.length > 0)
    throw new BadUserInputError(
      `Invalid forecast call: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`,
      errors,
    );
  const { principal } = ctx;
  const wanted: ForecastScope =
    input.scope === null || input.scope === undefined
      ? principal.role === Role.ADMIN || principal.memberId === null
        ? { kind: 'company' }
        : { kind: 'member', memberId: principal.memberId }
      : parseScope(input.scope);
  const clock = await forecastClock(ctx);
  const period = await resolveForecastPeriod(ctx, input.period, clock);
  const scope = await resolveScope(ctx, wanted);
  assertCanSubmit(principal, scope);
  if (periodEnded(period.slot, clock))
    throw new ConflictError(
      `Period ${period.name} ended on ${period.slot.end}: calls are for periods not yet over (its accuracy: GET /forecasts/accuracy?period=${period.name})`,
    );
  const fields = {
    period: period.name,
    unit: period.unit,
    scope: scopeName(wanted),
    scopeKind: wanted.kind,
    scopeId:
      wanted.kind === 'company' ? null : wanted.kind === 'team' ? wanted.teamId : wanted.memberId,
    call: input.call,
    bestCase: input.bestCase ?? null,
    note: input.note ?? null,
    submittedAt: clock,
    recordedAt: new Date(),
    submittedBy: { subject: principal.subject, memberId: principal.memberId, role: principal.role },
  };
  const event = forecastSubmitted({
    ...fields,
    member: scope.kind === 'member' ? scope.member : undefined,
    teamId: scope.kind === 'team' ? scope.team._id : undefined,
  });
  const created = await ForecastSubmissionModel.create({ ...fields, ...withEvents(event) });
  return callOf(created.toObject());
}

export interface ListSubmissionsRequest {
  period?: string | null;
  scope?: string | null;
  /** 1..100, default 20. */
  limit?: number;
  cursor?: string | null;
}

export const MAX_SUBMISSIONS_PAGE = 100;
const DEFAULT_SUBMISSIONS_PAGE = 20;

/**
 * The calls of a period within a scope, newest first, a page at a time (GET
 * /forecasts/submissions, `forecastSubmissions`): a member scope, the member's own calls; a team,
 * its adjusted calls and its members' calls the caller may read; the company, every call. The
 * same reading rights as the forecast (403, 404, 400, 409).
 */
export async function listSubmissions(
  ctx: AuthenticatedContext,
  request: ListSubmissionsRequest,
): Promise<{ scope: string; period: string; calls: ForecastCall[]; nextCursor: string | null }> {
  const limit = request.limit ?? DEFAULT_SUBMISSIONS_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SUBMISSIONS_PAGE) {
    const message = `must be an integer from 1 to ${MAX_SUBMISSIONS_PAGE}`;
    throw new BadUserInputError(`Invalid limit: ${message}, got ${describeValue(limit)}`, [
      { field: 'limit', message },
    ]);
  }
  const after = request.cursor ? decodeCursor('f', request.cursor, 'cursor') : null;
  const { scope, period } = await forecastFrame(ctx, request, 'read');
  const all = await ctx.loaders.forecastCalls.load(period.name);
  let within: ForecastCall[];
  switch (scope.kind) {
    case 'company':
      within = [...all];
      break;
    case 'member':
      within = all.filter((c) => c.scope === nameOf(scope));
      break;
    case 'team': {
      const teamId = scope.team._id;
      const members = await ctx.loaders.membersByTeam.load(teamId);
      const readable = new Set(
        members.filter((m) => canReadCallsOf(ctx.principal, m)).map((m) => `member:${m._id}`),
      );
      if (mayReadTeamCall(ctx.principal, teamId)) readable.add(`team:${teamId}`);
      within = all.filter((c) => readable.has(c.scope));
      break;
    }
  }
  within.sort((a, b) => compareCalls(b, a));
  let start = 0;
  if (after !== null) {
    const at = within.findIndex((c) => c.id === after);
    if (at < 0) throw invalidCursor(request.cursor!, 'cursor');
    start = at + 1;
  }
  const calls = within.slice(start, start + limit);
  const more = start + limit < within.length;
  return {
    scope: nameOf(scope),
    period: period.name,
    calls,
    nextCursor: more ? encodeCursor('f', calls[calls.length - 1].id) : null,
  };
}
