import type { Role } from '../auth/role';
import type { ForecastCadence } from '../domain/forecast-cadence';
import type { StageCategoryMapping } from '../domain/forecast-category';
import type { PeriodUnit } from '../domain/period';
import { outboxEvent, type OutboxEntry } from './outbox/outbox-entry';

/**
 * The events of the changes services make, one builder per kind, so that a service emits with
 * one expression in its write (`...withEvents(memberCreated(doc))`,
 * `...pushEvents(targetUpdated(...))`). Data is in the REST contract's shape (snake_case).
 */

interface MemberFields {
  _id: string;
  firstname: string;
  lastname: string;
  email: string;
  role: Role;
  teamId: string;
}

/** `<member>` of the contract. */
function memberData(member: MemberFields): Record<string, unknown> {
  return {
    member_id: member._id,
    lastname: member.lastname,
    firstname: member.firstname,
    email: member.email,
    role: member.role,
    memberOf: { team_id: member.teamId },
  };
}

export function memberCreated(member: MemberFields): OutboxEntry {
  return outboxEvent(
    'member.created',
    { member_id: member._id, member: memberData(member) },
    { audience: { teamIds: [member.teamId] } },
  );
}

/** `changes` names each field changed with its value before and after (`team_id`, `role`, ...). */
export function memberUpdated(
  member: MemberFields,
  changes: Record<string, { from: unknown; to: unknown }>,
  teamBefore: string = member.teamId,
): OutboxEntry {
  return outboxEvent(
    'member.updated',
    { member_id: member._id, changes, member: memberData(member) },
    { audience: { teamIds: [...new Set([teamBefore, member.teamId])] } },
  );
}

export function memberDeleted(member: MemberFields): OutboxEntry {
  return outboxEvent(
    'member.deleted',
    { member_id: member._id, member: memberData(member) },
    { audience: { teamIds: [member.teamId] } },
  );
}

/** `settings.updated`: the settings set and their values now. */
export function settingsUpdated(values: {
  currency?: string;
  period?: PeriodUnit;
  values?: string[];
  targetsDeleted?: number;
  forecastCategories?: StageCategoryMapping;
  forecastCadence?: ForecastCadence;
}): OutboxEntry {
  const data: Record<string, unknown> = {};
  if (values.currency !== undefined) data.currency = values.currency;
  if (values.period !== undefined) data.period = values.period;
  if (values.values !== undefined) data.values = values.values;
  if (values.targetsDeleted !== undefined) data.targets_deleted = values.targetsDeleted;
  if (values.forecastCategories !== undefined)
    data.forecast_categories = {
      pipeline_definition_id: values.forecastCategories.definitionId,
      stages: Object.fromEntries(
        values.forecastCategories.stages.map((stage) => [stage.stageId, stage.category]),
      ),
    };
  if (values.forecastCadence !== undefined) data.forecast_cadence = values.forecastCadence;
  return outboxEvent('settings.updated', { changed: Object.keys(data), ...data });
}

/**
 * `target.updated`: whose targets, which year, and the amounts, which only a reader of that
 * member's targets gets (member-access.ts `canReadTargets`; a webhook by the role of its owner).
 */
export function targetUpdated(
  member: { _id: string; teamId: string },
  set: {
    year: number;
    period: PeriodUnit;
    currency: string;
    targets: Array<{ period: string; amount: number }>;
  },
): OutboxEntry {
  return outboxEvent(
    'target.updated',
    {
      member_id: member._id,
      team_id: member.teamId,
      year: set.year,
      period: set.period,
      currency: set.currency,
      targets: set.targets,
    },
    {
      audience: { teamIds: [member.teamId] },
      privacy: {
        kind: 'targets',
        of: [{ memberId: member._id, teamId: member.teamId }],
        redact: ['targets'],
      },
    },
  );
}

/** `snapshot.committed`; its data is read from the snapshot when it is published (snapshot-events.ts). */
export function snapshotCommitted(): OutboxEntry {
  return outboxEvent('snapshot.committed', {});
}

/**
 * `sync.succeeded`, for admins only (only they read syncs): the run as GET /crm/syncs/{sync_id}
 * shows it once it ended; `snapshot_id` null when nothing changed and nothing was committed.
 */
export function syncSucceeded(run: {
  syncId: string;
  provider: string;
  mode: string;
  snapshotId: string | null;
  counts: {
    pipelines: number;
    stages: number;
    deals: number;
    owners: number;
    teams: number;
    membersCreated: number;
  };
  changes: { added: number; changed: number; unchanged: number; removed: number };
}): OutboxEntry {
  const { counts, changes } = run;
  return outboxEvent(
    'sync.succeeded',
    {
      sync_id: run.syncId,
      provider: run.provider,
      mode: run.mode,
      snapshot_id: run.snapshotId,
      counts: {
        pipelines: counts.pipelines,
        stages: counts.stages,
        deals: counts.deals,
        owners: counts.owners,
        teams: counts.teams,
        members_created: counts.membersCreated,
      },
      changes: {
        added: changes.added,
        changed: changes.changed,
        unchanged: changes.unchanged,
        removed: changes.removed,
      },
    },
    { privacy: { kind: 'admins' } },
  );
}

/**
 * `sync.failed`, for admins only. Without `sync_id` in `data` it names the run that carries it,
 * so one update can mark several runs failed, each with its own event.
 */
export function syncFailed(data: Record<string, unknown>): OutboxEntry {
  return outboxEvent('sync.failed', data, {
    privacy: { kind: 'admins' },
    subjectKey: 'sync_id' in data ? undefined : 'sync_id',
  });
}

/**
 * `forecast.submitted`: a call, to those who may read it (the forecast's rules,
 * forecasts/forecast-access.ts): a member's call to the member, their team's manager and admins;
 * a team's adjusted call to that team's manager and admins; the company's, and any call an admin
 * made, to admins only (a manager's team view withholds an admin's calls).
 */
export function forecastSubmitted(call: {
  period: string;
  scope: string;
  call: number;
  bestCase: number | null;
  note: string | null;
  submittedAt: Date;
  submittedBy: { memberId: string | null; role: Role };
  member?: { _id: string; teamId: string };
  teamId?: string;
}): OutboxEntry {
  const teamId = call.member?.teamId ?? call.teamId ?? null;
  const byAdmin = call.submittedBy.role === 'admin';
  return outboxEvent(
    'forecast.submitted',
    {
      period: call.period,
      scope: call.scope,
      call: call.call,
      best_case: call.bestCase,
      note: call.note,
      submitted_at: call.submittedAt.toISOString(),
      submitted_by: call.submittedBy.memberId,
    },
    {
      audience: { teamIds: teamId === null ? [] : [teamId] },
      privacy:
        byAdmin || teamId === null
          ? { kind: 'admins' }
          : {
              kind: 'targets',
              // A team's call: no member is its owner, so its manager and admins read it.
              of: [{ memberId: call.member?._id ?? `team:${teamId}`, teamId }],
              redact: [],
            },
      subjectKey: 'submission_id',
    },
  );
}
