import type { AuthenticatedContext } from '../context/request-context';
import type { CrmSyncDoc } from '../models/crm-sync.model';
import { requireAdmin } from '../services/member-access';
import { INTERRUPTED, type CrmSyncResult, type SyncProgress } from './crm-sync';
import { readLatestSync } from './sync-runs';

/** What GET /crm/syncs/latest answers. */
export interface CrmSyncStatus {
  configured: boolean;
  /** The run under way, else the one finished last; null before the first sync. */
  latest: CrmSyncDoc | null;
  /** Where the next incremental sync reads from (less the overlap); null before the first committed sync. */
  highWaterMark: Date | null;
  /** This instance's next scheduled run; null without a schedule. */
  nextRunAt: Date | null;
}

/**
 * Runs a HubSpot sync now (POST /crm/syncs, the syncCrmData mutation). Admin only (403).
 * Not configured, or a sync already running: 409. HubSpot refusing the token or failing: 502.
 */
export async function syncCrmData(
  ctx: AuthenticatedContext,
  options: { force?: boolean; onProgress?: (progress: SyncProgress) => void } = {},
): Promise<CrmSyncResult> {
  requireAdmin(ctx.principal, 'sync CRM data from HubSpot');
  // Only a scheduled run answers null (skipped).
  return (await ctx.sync.sync.run(ctx.principal, 'api', options))!;
}

/** The latest sync, the high-water mark and the next scheduled run (GET /crm/syncs/latest). Admin only. */
export async function latestCrmSync(ctx: AuthenticatedContext): Promise<CrmSyncStatus> {
  requireAdmin(ctx.principal, 'read the HubSpot sync status');
  const { run, state } = await readLatestSync(Date.now(), INTERRUPTED);
  return {
    configured: ctx.sync.sync.configured,
    latest: run,
    highWaterMark: state?.highWaterMark ?? null,
    nextRunAt: ctx.sync.scheduler?.nextRunAt ?? null,
  };
}
