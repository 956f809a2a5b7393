import type { AuthenticatedContext } from '../context/request-context';
import { NotFoundError } from '../errors';
import type { CrmSyncDoc, CrmSyncMode } from '../models/crm-sync.model';
import { decodeCursor, encodeCursor, invalidCursor } from '../services/pipeline-cursor';
import { requireAdmin } from '../services/member-access';
import { INTERRUPTED } from './crm-sync';
import { listSyncRuns, readLatestSyncRun, readSyncRun, type RunPosition } from './sync-runs';

/**
 * Starts a sync of the configured CRM (POST /crm/syncs, the syncCrmData mutation) and answers its
 * run at once, `running`; it goes on in the background. Admin only (403). Not configured, a sync
 * already running (named), or `incremental` with nothing to continue from: 409.
 */
export async function startCrmSync(
  ctx: AuthenticatedContext,
  options: { mode?: CrmSyncMode; force?: boolean } = {},
): Promise<CrmSyncDoc> {
  requireAdmin(ctx.principal, 'sync CRM data');
  const started = await ctx.sync.sync.start(ctx.principal, 'api', options);
  return started.run;
}

/** One sync run (GET /crm/syncs/{sync_id}, crmSync). Admin only; unknown or pruned: 404. */
export async function crmSyncRun(ctx: AuthenticatedContext, syncId: string): Promise<CrmSyncDoc> {
  requireAdmin(ctx.principal, 'read CRM syncs');
  const run = await readSyncRun(syncId, Date.now(), INTERRUPTED);
  if (run === null)
    throw new NotFoundError(`Sync ${syncId} not found (the latest 200 runs are kept)`);
  return run;
}

/** The latest sync run (GET /crm/syncs/latest): the one under way, else the last. None yet: 404. */
export async function latestCrmSyncRun(ctx: AuthenticatedContext): Promise<CrmSyncDoc> {
  requireAdmin(ctx.principal, 'read CRM syncs');
  const run = await readLatestSyncRun(Date.now(), INTERRUPTED);
  if (run === null) {
    throw new NotFoundError(
      ctx.sync.sync.configured
        ? 'No CRM sync has run yet: POST /crm/syncs starts one'
        : 'No CRM sync has run yet, and none can until the sync is configured (docs/crm-sync.md)',
    );
  }
  return run;
}

/** A page of runs, newest first, and the cursor of the next page (null on the last). */
export interface CrmSyncPage {
  runs: CrmSyncDoc[];
  nextCursor: string | null;
}

function positionOf(cursor: string, field: string): RunPosition {
  const text = decodeCursor('r', cursor, field);
  const match = /^(\d+):(.+)$/.exec(text);
  if (!match) throw invalidCursor(cursor, field);
  return { startedAt: new Date(Number(match[1])), id: match[2] };
}

/** The most recent runs (GET /crm/syncs, crmSyncs), `limit` a page after `cursor`. Admin only. */
export async function crmSyncRuns(
  ctx: AuthenticatedContext,
  page: { limit: number; cursor?: string | null; cursorField?: string },
): Promise<CrmSyncPage> {
  requireAdmin(ctx.principal, 'read CRM syncs');
  const after = page.cursor ? positionOf(page.cursor, page.cursorField ?? 'cursor') : null;
  const runs = await listSyncRuns({ limit: page.limit + 1, after }, Date.now(), INTERRUPTED);
  const shown = runs.slice(0, page.limit);
  const last = shown.at(-1);
  return {
    runs: shown,
    nextCursor: runs.length > page.limit && last ? runCursor(last) : null,
  };
}

/** The cursor of the page after `run`. */
export function runCursor(run: CrmSyncDoc): string {
  return encodeCursor('r', `${run.startedAt.getTime()}:${run._id}`);
}
