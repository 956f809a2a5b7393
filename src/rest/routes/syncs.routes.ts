import { ErrorCode } from '../../errors';
import { withImportNotes } from '../../import/import-summary';
import type { CrmSyncDoc } from '../../models/crm-sync.model';
import { latestCrmSync, syncCrmData } from '../../sync/sync.service';
import { envelopeSchema } from '../envelope-schema';
import { CrmSyncBody } from '../inputs/crm-sync.input';
import { ok, type RouteDefinition } from '../route-definition';
import { adminOnly } from '../route-roles';

const count = { type: 'integer', minimum: 0 };
const nullableString = { type: ['string', 'null'] };
const nullableDate = { type: ['string', 'null'], format: 'date-time' };

const COUNTS = {
  type: 'object',
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
const FETCHED = {
  type: 'object',
  properties: { deals: count, archived: count },
  required: ['deals', 'archived'],
};

const SYNC_RESPONSE = envelopeSchema(
  {
    sync_id: { type: 'string' },
    mode: { type: 'string', enum: ['full', 'incremental'] },
    snapshot_id: { type: 'string' },
    counts: COUNTS,
    skipped: {
      type: 'array',
      items: {
        type: 'object',
        properties: { id: { type: 'string' }, reason: { type: 'string' } },
        required: ['id', 'reason'],
      },
    },
    fetched: FETCHED,
    high_water_mark: nullableDate,
    demo_removed: { type: 'boolean' },
    skipped_for_currency: {
      type: 'array',
      items: {
        type: 'object',
        properties: { currency: { type: 'string' }, deals: count },
        required: ['currency', 'deals'],
      },
    },
  },
  [
    'sync_id',
    'mode',
    'snapshot_id',
    'counts',
    'skipped',
    'fetched',
    'high_water_mark',
    'demo_removed',
    'skipped_for_currency',
  ],
);

const RUN = {
  type: ['object', 'null'],
  properties: {
    sync_id: { type: 'string' },
    trigger: { type: 'string', enum: ['api', 'cli', 'schedule'] },
    mode: { type: ['string', 'null'], enum: ['full', 'incremental', null] },
    outcome: { type: 'string', enum: ['running', 'ok', 'failed', 'skipped'] },
    started_at: { type: 'string', format: 'date-time' },
    finished_at: nullableDate,
    snapshot_id: nullableString,
    counts: { ...COUNTS, type: ['object', 'null'] },
    fetched: { ...FETCHED, type: ['object', 'null'] },
    error: nullableString,
  },
  required: [
    'sync_id',
    'trigger',
    'mode',
    'outcome',
    'started_at',
    'finished_at',
    'snapshot_id',
    'counts',
    'fetched',
    'error',
  ],
};

const LATEST_RESPONSE = envelopeSchema(
  {
    configured: { type: 'boolean' },
    sync: RUN,
    high_water_mark: nullableDate,
    next_run_at: nullableDate,
  },
  ['configured', 'sync', 'high_water_mark', 'next_run_at'],
);

function iso(date: Date | null): string | null {
  return date === null ? null : date.toISOString();
}

/** A run in the REST shape (snake_case, ISO dates). */
export function runView(run: CrmSyncDoc | null): Record<string, unknown> | null {
  if (run === null) return null;
  return {
    sync_id: run._id,
    trigger: run.trigger,
    mode: run.mode,
    outcome: run.outcome,
    started_at: run.startedAt.toISOString(),
    finished_at: iso(run.finishedAt),
    snapshot_id: run.snapshotId,
    counts: run.counts === null ? null : { ...countsView(run.counts) },
    fetched:
      run.fetched === null ? null : { deals: run.fetched.deals, archived: run.fetched.archived },
    error: run.error,
  };
}

function countsView(c: NonNullable<CrmSyncDoc['counts']>) {
  return {
    pipelines: c.pipelines,
    stages: c.stages,
    deals: c.deals,
    owners: c.owners,
    teams: c.teams,
    members_created: c.membersCreated,
  };
}

const syncRoute: RouteDefinition<CrmSyncBody> = {
  method: 'POST',
  path: '/crm/syncs',
  summary:
    'Sync from HubSpot now (admin): the first sync full, later ones the deals changed since the last; answers like an import plus mode',
  tag: 'CRM import',
  authenticated: true,
  roles: adminOnly('sync CRM data from HubSpot'),
  input: CrmSyncBody,
  errors: [ErrorCode.CONFLICT, ErrorCode.BAD_GATEWAY],
  response: SYNC_RESPONSE,
  handler: async (ctx, input) => {
    const result = await syncCrmData(ctx, { force: input.force });
    const imported = result.import;
    const { counts } = imported;
    const read = `read ${result.fetched.deals} deals${result.mode === 'incremental' ? ` changed and ${result.fetched.archived} archived` : ''} from HubSpot`;
    const summary = imported.reused
      ? `${result.mode === 'full' ? 'Full' : 'Incremental'} sync: ${read}; nothing changed since snapshot ${imported.snapshotId}`
      : `${result.mode === 'full' ? 'Full' : 'Incremental'} sync: ${read}; snapshot ${imported.snapshotId} holds ${counts.deals} deals in ${counts.pipelines} pipelines` +
        (imported.skipped.length > 0
          ? `; ${imported.skipped.length} items skipped or defaulted, see skipped`
          : '');
    return ok(withImportNotes(summary, imported), {
      sync_id: result.syncId,
      mode: result.mode,
      snapshot_id: imported.snapshotId,
      counts: countsView(counts),
      skipped: imported.skipped,
      fetched: result.fetched,
      high_water_mark: iso(result.highWaterMark),
      demo_removed: imported.demoRemoved,
      skipped_for_currency: imported.skippedForCurrency,
    });
  },
};

const latestRoute: RouteDefinition = {
  method: 'GET',
  path: '/crm/syncs/latest',
  summary:
    'The latest HubSpot sync (the one under way, else the last finished): times, outcome, counts; and the next scheduled run (admin)',
  tag: 'CRM import',
  authenticated: true,
  roles: adminOnly('read the HubSpot sync status'),
  response: LATEST_RESPONSE,
  handler: async (ctx) => {
    const status = await latestCrmSync(ctx);
    const message =
      status.latest === null
        ? status.configured
          ? 'No HubSpot sync has run yet'
          : 'No HubSpot sync has run yet; set HUBSPOT_TOKEN to sync'
        : `The latest HubSpot sync ${status.latest.outcome === 'running' ? 'is running' : `ended ${status.latest.outcome}`}`;
    return ok(message, {
      configured: status.configured,
      sync: runView(status.latest),
      high_water_mark: iso(status.highWaterMark),
      next_run_at: iso(status.nextRunAt),
    });
  },
};

/** `POST /crm/syncs`, `GET /crm/syncs/latest`. */
export const syncsRoutes: RouteDefinition[] = [syncRoute as RouteDefinition, latestRoute];
