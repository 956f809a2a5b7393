import type { Principal } from '../../auth/principal';
import { Role } from '../../auth/role';
import type { AuthenticatedContext } from '../../context/request-context';
import { latestCalls, scopeName, type ForecastCall } from '../../domain/forecast-calls';
import {
  addForecastDays,
  emptySums,
  epochDay,
  type ForecastSums,
} from '../../domain/forecast-days';
import type { PipelineFacts } from '../../domain/pipeline-facts';
import type { PipelineView, SnapshotView } from '../../domain/snapshot-views';
import { ConflictError } from '../../errors';
import { factsKey } from '../../loaders/pipeline.loaders';
import type { MemberDoc } from '../../models/member.model';
import { SETTINGS_ID } from '../../models/settings.model';
import type { TargetDoc } from '../../models/target.model';
import { canReadTargets } from '../member-access';
import { mayReadTargetsOfAll } from '../metrics/target-access';
import { resolveSnapshot } from '../pipeline.service';
import {
  assertCanReadScope,
  canReadCallsOf,
  defaultScope,
  parseScope,
  resolveScope,
  type ResolvedScope,
} from './forecast-access';
import { forecastClock, resolveForecastPeriod, type ForecastPeriod } from './forecast-time';

/** The four sums of a forecast, rounded to 2 decimals. */
export type ForecastFigures = ForecastSums;

/**
 * A target as a caller sees it: the amount, null when none is set, undefined when the caller may
 * not read every target it sums (docs/forecasts.md, "Who sees what").
 */
export type VisibleTarget = number | null | undefined;

export interface MemberForecast {
  memberId: string;
  /** The member's team now, else the team the snapshot counts their deals in; null when neither is known. */
  teamId: string | null;
  figures: ForecastFigures;
  /** The member's latest call for the period, null when none or when the caller may not read it. */
  submittedCall: number | null;
  submittedAt: Date | null;
  target: VisibleTarget;
}

export interface TeamForecast {
  teamId: string;
  figures: ForecastFigures;
  /** Σ of the latest calls of the team's members the caller may read; null when there are none. */
  submittedCall: number | null;
  /** The latest call submitted for the team itself (its manager's adjusted call); null when none. */
  adjustedCall: number | null;
  adjustedAt: Date | null;
  target: VisibleTarget;
}

export interface ForecastRollup {
  figures: ForecastFigures;
  /** Σ of the members' latest calls (a member scope: the member's call); null when none. */
  submittedCall: number | null;
  /** The latest call for the scope itself: the team's adjusted call, the company's; null for a member. */
  adjustedCall: number | null;
  adjustedAt: Date | null;
  target: VisibleTarget;
}

export interface Forecast {
  period: ForecastPeriod;
  currency: string | null;
  scope: string;
  snapshot: SnapshotView;
  rollup: ForecastRollup;
  members: MemberForecast[];
  teams: TeamForecast[];
}

export interface ForecastRequest {
  /** `2026-Q4`...; default: the current period at the forecast clock. */
  period?: string | null;
  /** `company`, `team:<id>`, `member:<id>`; default: the caller's own (docs/forecasts.md). */
  scope?: string | null;
}

function round2(value: number): number {
  return Math.round((value + Number.EPSILON) * 100) / 100;
}

function rounded(sums: ForecastSums): ForecastFigures {
  return {
    closed: round2(sums.closed),
    commit: round2(sums.commit),
    bestCase: round2(sums.bestCase),
    pipeline: round2(sums.pipeline),
  };
}

/** What a forecast read resolves before it sums anything; the other forecast reads share it. */
export interface ForecastFrame {
  scope: ResolvedScope;
  period: ForecastPeriod;
  clock: Date;
}

/**
 * The scope (400 when malformed, 404 when it names nothing, 403 when the caller may not `verb`
 * it) and the period (400, 409 while the period is not set) of a forecast read.
 */
export async function forecastFrame(
  ctx: AuthenticatedContext,
  request: ForecastRequest,
  verb: string,
): Promise<ForecastFrame> {
  const parsed =
    request.scope === null || request.scope === undefined
      ? defaultScope(ctx.principal)
      : parseScope(request.scope);
  const clock = await forecastClock(ctx);
  const period = await resolveForecastPeriod(ctx, request.period, clock);
  const scope = await resolveScope(ctx, parsed);
  assertCanReadScope(ctx.principal, scope, verb);
  return { scope, period, clock };
}

/** The name of a resolved scope. */
export function nameOf(scope: ResolvedScope): string {
  switch (scope.kind) {
    case 'company':
      return scopeName(scope);
    case 'team':
      return scopeName({ kind: 'team', teamId: scope.team._id });
    case 'member':
      return scopeName({ kind: 'member', memberId: scope.member._id });
  }
}

/**
 * The people and teams a forecast of `scope` lists, with the snapshot's facts they are summed from
 * (docs/forecasts.md, "The forecast of a period"): a member scope, the member; a team, its members
 * now and those whose deals the snapshot counts in it; the company, every member and team now and
 * every one the snapshot counts. Facts are null where a member or team owns nothing in a definition.
 */
export interface ForecastPopulation {
  snapshot: SnapshotView;
  /**
   * Member id → their current document (null: deleted since), their team now (else the
   * snapshot's), and the team whose figures the snapshot counts their deals in.
   */
  members: Map<
    string,
    { doc: MemberDoc | null; teamId: string | null; snapshotTeamId: string | null }
  >;
  teamIds: string[];
  /** Facts of each member's, team's and the scope's pipelines, by pipeline id. */
  facts: Map<string, PipelineFacts>;
  /** The pipeline ids of each member, each team, and the scope itself. */
  memberPipelines: Map<string, string[]>;
  teamPipelines: Map<string, string[]>;
  scopePipelines: string[];
}

/** Reads who and what a forecast of `scope` sums from the latest snapshot (404 before the first import). */
export async function forecastPopulation(
  ctx: AuthenticatedContext,
  scope: ResolvedScope,
): Promise<ForecastPopulation> {
  const snapshot = await resolveSnapshot(ctx);
  const pipelines = await ctx.loaders.pipelinesBySnapshot.load(snapshot.id);
  const memberPipelines = new Map<string, string[]>();
  const teamPipelines = new Map<string, string[]>();
  const complete: string[] = [];
  const push = (map: Map<string, string[]>, key: string, pipeline: PipelineView) => {
    const list = map.get(key);
    if (list) list.push(pipeline.id);
    else map.set(key, [pipeline.id]);
  };
  for (const pipeline of pipelines) {
    if (pipeline.kind === 'complete') complete.push(pipeline.id);
    else if (pipeline.kind === 'team' && pipeline.teamId)
      push(teamPipelines, pipeline.teamId, pipeline);
    else if (pipeline.kind === 'member' && pipeline.memberId)
      push(memberPipelines, pipeline.memberId, pipeline);
  }

  let current: MemberDoc[];
  let teamIds: string[];
  let scopePipelines: string[];
  switch (scope.kind) {
    case 'company': {
      const teams = await ctx.loaders.allTeams.load('all');
      teamIds = [...new Set([...teams.map((t) => t._id), ...teamPipelines.keys()])].sort();
      current = (await ctx.loaders.membersByTeam.loadMany(teams.map((t) => t._id))).flatMap(
        (members) => {
          if (members instanceof Error) throw members;
          return members;
        },
      );
      scopePipelines = complete;
      break;
    }
    case 'team':
      teamIds = [scope.team._id];
      current = await ctx.loaders.membersByTeam.load(scope.team._id);
      scopePipelines = teamPipelines.get(scope.team._id) ?? [];
      break;
    case 'member':
      teamIds = [];
      current = [scope.member];
      scopePipelines = memberPipelines.get(scope.member._id) ?? [];
      break;
  }
  const pipelineIds = [...scopePipelines, ...teamIds.flatMap((id) => teamPipelines.get(id) ?? [])];
  const facts = new Map<string, PipelineFacts>();
  const load = async (ids: string[]) => {
    const found = await ctx.loaders.pipelineFacts.loadMany(
      ids.map((id) => factsKey(snapshot.id, id)),
    );
    found.forEach((f, i) => {
      if (f instanceof Error) throw f;
      if (f) facts.set(ids[i], f);
    });
  };
  await load(pipelineIds);

  // The snapshot's team of each member its team facts count.
  const snapshotTeam = new Map<string, string>();
  for (const teamId of teamIds)
    for (const id of teamPipelines.get(teamId) ?? [])
      for (const memberId of facts.get(id)?.memberIds ?? []) snapshotTeam.set(memberId, teamId);

  const members: ForecastPopulation['members'] = new Map();
  for (const doc of current)
    members.set(doc._id, {
      doc,
      teamId: doc.teamId,
      snapshotTeamId: snapshotTeam.get(doc._id) ?? null,
    });
  if (scope.kind !== 'member') {
    const counted =
      scope.kind === 'company' ? [...memberPipelines.keys()] : [...snapshotTeam.keys()];
    const missing = counted.filter((id) => !members.has(id));
    const docs = await ctx.loaders.memberById.loadMany(missing);
    missing.forEach((id, i) => {
      const doc = docs[i];
      if (doc instanceof Error) throw doc;
      const snapshotTeamId = snapshotTeam.get(id) ?? null;
      members.set(id, { doc, teamId: doc?.teamId ?? snapshotTeamId, snapshotTeamId });
    });
  }
  await load([...members.keys()].flatMap((id) => memberPipelines.get(id) ?? []));
  return { snapshot, members, teamIds, facts, memberPipelines, teamPipelines, scopePipelines };
}

/** Whether `principal` reads a team's own (adjusted) calls: an admin, or the team's manager. */
export function mayReadTeamCall(principal: Principal, teamId: string): boolean {
  return (
    principal.role === Role.ADMIN ||
    (principal.role === Role.MANAGER && principal.teamId === teamId)
  );
}

/** The forecast sums of some pipelines over a period; 409 for facts built before forecasts. */
export function sumPipelines(
  population: ForecastPopulation,
  pipelineIds: readonly string[],
  period: ForecastPeriod,
): ForecastSums {
  const from = epochDay(period.slot.startsAt);
  const to = epochDay(period.slot.endsBefore);
  const sums = emptySums();
  for (const id of pipelineIds) {
    const facts = population.facts.get(id);
    if (!facts) continue;
    if (!facts.forecastDays)
      throw new ConflictError(
        `Snapshot ${population.snapshot.id} was imported before forecasts existed: import (or sync) again, and forecasts read the new snapshot`,
      );
    addForecastDays(sums, facts.forecastDays, from, to);
  }
  return sums;
}

/** The targets of `period` by member, of the configured unit (other units' sets do not apply). */
export async function periodTargets(
  ctx: AuthenticatedContext,
  period: ForecastPeriod,
): Promise<{ byMember: Map<string, number>; docs: TargetDoc[] }> {
  const docs = await ctx.loaders.targetsByYear.load(period.slot.year);
  const byMember = new Map<string, number>();
  for (const doc of docs) {
    if (doc.period !== period.unit) continue;
    const amount = doc.amounts[period.slot.index - 1];
    if (typeof amount === 'number') byMember.set(doc.memberId, amount);
  }
  return { byMember, docs };
}

/**
 * The forecast of a period for a scope (GET /forecasts, `forecast`, `Member.forecast`): closed
 * (won in the period), commit, best case and pipeline (open deals expected to close in it, by
 * category) per member, team and the scope, from the latest snapshot's precomputed facts, with
 * the latest calls the caller may read and, where they may read every target summed, the targets.
 * 400 bad period or scope; 403 a scope the caller may not read; 404 unknown member or team, or no
 * snapshot yet; 409 period not set, or a snapshot imported before forecasts existed.
 */
export async function getForecast(
  ctx: AuthenticatedContext,
  request: ForecastRequest,
): Promise<Forecast> {
  const { scope, period } = await forecastFrame(ctx, request, 'read');
  const population = await forecastPopulation(ctx, scope);
  const [calls, targets, settings] = await Promise.all([
    ctx.loaders.forecastCalls.load(period.name),
    periodTargets(ctx, period),
    ctx.loaders.metricSettings.load(SETTINGS_ID),
  ]);
  const latest = latestCalls(calls);
  const { principal } = ctx;

  const members: MemberForecast[] = [];
  for (const [memberId, { doc, teamId }] of [...population.members].sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  )) {
    // A member deleted since the snapshot: only an admin reads what calls they left.
    const readable = doc ? canReadCallsOf(principal, doc) : principal.role === Role.ADMIN;
    const call = readable ? latest.get(`member:${memberId}`) : undefined;
    members.push({
      memberId,
      teamId,
      figures: rounded(
        sumPipelines(population, population.memberPipelines.get(memberId) ?? [], period),
      ),
      submittedCall: call?.call ?? null,
      submittedAt: call?.submittedAt ?? null,
      target:
        doc && canReadTargets(principal, doc)
          ? (targets.byMember.get(memberId) ?? null)
          : doc
            ? undefined
            : null,
    });
  }

  const sumCalls = (rows: MemberForecast[]): number | null =>
    rows.some((r) => r.submittedCall !== null)
      ? round2(rows.reduce((sum, r) => sum + (r.submittedCall ?? 0), 0))
      : null;
  const targetOf = async (rows: MemberForecast[]): Promise<VisibleTarget> => {
    const ids = rows.map((r) => r.memberId);
    if (!(await mayReadTargetsOfAll(ctx, ids, targets.docs))) return undefined;
    const amounts = ids.flatMap((id) => {
      const amount = targets.byMember.get(id);
      return amount === undefined ? [] : [amount];
    });
    return amounts.length === 0 ? null : round2(amounts.reduce((a, b) => a + b, 0));
  };
  const adjusted = (name: string): ForecastCall | undefined => latest.get(name);

  const teams: TeamForecast[] = [];
  // A team's calls and targets: its members now and those whose deals its figures count.
  const inTeam = (row: MemberForecast, teamId: string) =>
    row.teamId === teamId || population.members.get(row.memberId)?.snapshotTeamId === teamId;
  for (const teamId of population.teamIds) {
    const rows = members.filter((m) => inTeam(m, teamId));
    const call = mayReadTeamCall(principal, teamId) ? adjusted(`team:${teamId}`) : undefined;
    teams.push({
      teamId,
      figures: rounded(
        sumPipelines(population, population.teamPipelines.get(teamId) ?? [], period),
      ),
      submittedCall: sumCalls(rows),
      adjustedCall: call?.call ?? null,
      adjustedAt: call?.submittedAt ?? null,
      target: await targetOf(rows),
    });
  }

  const name = nameOf(scope);
  const own = scope.kind === 'member' ? undefined : adjusted(name);
  const rollup: ForecastRollup = {
    figures: rounded(sumPipelines(population, population.scopePipelines, period)),
    submittedCall: sumCalls(members),
    adjustedCall: own?.call ?? null,
    adjustedAt: own?.submittedAt ?? null,
    target: await targetOf(members),
  };
  return {
    period,
    currency: settings.currency,
    scope: name,
    snapshot: population.snapshot,
    rollup,
    members,
    teams,
  };
}
