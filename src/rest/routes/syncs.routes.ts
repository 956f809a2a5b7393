import { ErrorCode } from '../../errors';
import type { CrmSyncDoc } from '../../models/crm-sync.model';
import { crmSyncRun, crmSyncRuns, latestCrmSyncRun, startCrmSync } from '../../sync/sync.service';
import { envelopeSchema } from '../envelope-schema';
import { CrmSyncBody, ListSyncsQuery, SyncIdInput } from '../inputs/crm-sync.input';
import { accepted, ok, type RouteDefinition } from '../route-definition';
import { adminOnly } from '../route-roles';

// None of these routes is cacheable: each answers a job that may be running, and its lease's clock.

const TAG = 'CRM import';
const count = { type: 'integer', minimum: 0 };
const nullableString = { type: ['string', 'null'] };
const nullableDate = { type: ['string', 'null'], format: 'date-time' };

const COUNTS = {
  type: ['object', 'null'],
  properties: {
    pipelines: count,
    stages: count,
    deals: count,
    owners: count,
    teams: count,
    members_created: count,
  },
  required: ['pipelines', 'stages', 'deals', 'owners', 'teams', 'members_created'],
};
const CHANGES = {
  type: ['object', 'null'],
  properties: { added: count, changed: count, unchanged: count, removed: count },
  required: ['added', 'changed', 'unchanged', 'removed'],
};

/** `<sync>` of the contract. */
const SYNC = {
  type: 'object',
  properties: {
    sync_id: { type: 'string' },
    provider: { type: 'string', enum: ['hubspot', 'salesforce'] },
    mode: { type: 'string', enum: ['full', 'incremental'] },
    status: { type: 'string', enum: ['running', 'succeeded', 'failed'] },
    started_at: { type: 'string', format: 'date-time' },
    finished_at: nullableDate,
    progress: {
      type: 'object',
      properties: { deals_read: count },
      required: ['deals_read'],
    },
    snapshot_id: nullableString,
    counts: COUNTS,
    changes: CHANGES,
    error: nullableString,
  },
  required: [
    'sync_id',
    'provider',
    'mode',
    'status',
    'started_at',
    'finished_at',
    'progress',
    'snapshot_id',
    'counts',
    'changes',
    'error',
  ],
};

const SYNC_RESPONSE = envelopeSchema({ sync: SYNC }, ['sync']);

function iso(date: Date | null): string | null {
  return date === null ? null : date.toISOString();
}

/** A run as the contract's `<sync>` (snake_case, ISO dates). */
export function syncView(run: CrmSyncDoc): Record<string, unknown> {
  const c = run.counts;
  return {
    sync_id: run._id,
    provider: run.provider,
    mode: run.mode,
    status: run.status,
    started_at: run.startedAt.toISOString(),
    finished_at: iso(run.finishedAt),
    progress: { deals_read: run.progress.dealsRead },
    snapshot_id: run.snapshotId,
    counts:
      c === null
        ? null
        : {
            pipelines: c.pipelines,
            stages: c.stages,
            deals: c.deals,
            owners: c.owners,
            teams: c.teams,
            members_created: c.membersCreated,
          },
    changes: run.changes === null ? null : { ...run.changes },
    error: run.error,
  };
}

const CRM = { hubspot: 'HubSpot', salesforce: 'Salesforce' } as const;

/** One line on where a run stands, for the envelope's message. */
export function syncMessage(run: CrmSyncDoc): string {
  const name = `${run.mode === 'full' ? 'Full' : 'Incremental'} ${CRM[run.provider]} sync ${run._id}`;
  switch (run.status) {
    case 'running':
      return `${name} is running: ${run.progress.dealsRead} deals read so far`;
    case 'failed':
      return `${name} failed, nothing was kept: ${run.error}`;
    case 'succeeded': {
      const ch = run.changes ?? { added: 0, changed: 0, unchanged: 0, removed: 0 };
      const counted = `${ch.added} added, ${ch.changed} changed, ${ch.unchanged} unchanged, ${ch.removed} removed`;
      const summary =
        run.snapshotId === null
          ? `${name} succeeded: nothing changed (${counted}), so no snapshot was committed`
          : `${name} succeeded: snapshot ${run.snapshotId} committed (${counted})`;
      return [summary, ...run.notes].join('. ');
    }
  }
}

const startRoute: RouteDefinition<CrmSyncBody> = {
  method: 'POST',
  path: '/crm/syncs',
  summary:
    'Start a sync from the configured CRM (admin): answers 202 with the running sync and its Location at once; the first sync is full, later ones incremental unless mode says',
  tag: TAG,
  authenticated: true,
  roles: adminOnly('sync CRM data'),
  input: CrmSyncBody,
  errors: [ErrorCode.CONFLICT],
  successStatus: 202,
  successHeaders: [
    {
      name: 'Location',
      description: 'Where to follow the sync: GET /crm/syncs/{sync_id}',
      value: (result) => `/crm/syncs/${(result.sync as { sync_id: string }).sync_id}`,
    },
  ],
  response: SYNC_RESPONSE,
  handler: async (ctx, input) => {
    const run = await startCrmSync(ctx, { mode: input.mode, force: input.force });
    return accepted(
      `${run.mode === 'full' ? 'Full' : 'Incremental'} ${CRM[run.provider]} sync ${run._id} started: follow it at GET /crm/syncs/${run._id}`,
      { sync: syncView(run) },
    );
  },
};

const latestRoute: RouteDefinition = {
  method: 'GET',
  path: '/crm/syncs/latest',
  summary:
    'The latest sync (the one under way, else the last one): status, progress, changes (admin)',
  tag: TAG,
  authenticated: true,
  roles: adminOnly('read CRM syncs'),
  errors: [ErrorCode.NOT_FOUND],
  response: SYNC_RESPONSE,
  handler: async (ctx) => {
    const run = await latestCrmSyncRun(ctx);
    return ok(syncMessage(run), { sync: syncView(run) });
  },
};

const oneRoute: RouteDefinition<SyncIdInput> = {
  method: 'GET',
  path: '/crm/syncs/:sync_id',
  summary:
    'One sync: status, progress while it runs, then its snapshot, counts and changes, or its error (admin)',
  tag: TAG,
  authenticated: true,
  roles: adminOnly('read CRM syncs'),
  input: SyncIdInput,
  errors: [ErrorCode.NOT_FOUND],
  response: SYNC_RESPONSE,
  handler: async (ctx, input) => {
    const run = await crmSyncRun(ctx, input.sync_id);
    return ok(syncMessage(run), { sync: syncView(run) });
  },
};

const listRoute: RouteDefinition<ListSyncsQuery> = {
  method: 'GET',
  path: '/crm/syncs',
  summary: 'The most recent syncs, newest first, paginated with limit and cursor (admin)',
  tag: TAG,
  authenticated: true,
  roles: adminOnly('read CRM syncs'),
  input: ListSyncsQuery,
  response: envelopeSchema({ syncs: { type: 'array', items: SYNC }, next_cursor: nullableString }, [
    'syncs',
    'next_cursor',
  ]),
  handler: async (ctx, input) => {
    const page = await crmSyncRuns(ctx, { limit: input.limit, cursor: input.cursor });
    return ok(`${page.runs.length} sync(s)`, {
      syncs: page.runs.map(syncView),
      next_cursor: page.nextCursor,
    });
  },
};

/** `POST /crm/syncs`, `GET /crm/syncs`, `GET /crm/syncs/latest`, `GET /crm/syncs/{sync_id}`. */
export const syncsRoutes: RouteDefinition[] = [
  startRoute as RouteDefinition,
  listRoute as RouteDefinition,
  latestRoute,
  oneRoute as RouteDefinition,
];
