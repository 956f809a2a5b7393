// trusted(): the operators here are ours, never client input (filters are sanitised globally).
import { trusted } from 'mongoose';
import {
  CrmSyncStateModel,
  HUBSPOT_SYNC_STATE_ID,
  type CrmSyncStateDoc,
} from '../models/crm-sync-state.model';
import { CrmSyncModel, type CrmSyncDoc } from '../models/crm-sync.model';

/** Runs kept: enough to look back over days of a frequent schedule; the rest is removed. */
export const KEPT_SYNC_RUNS = 200;

/** Removes all but the KEPT_SYNC_RUNS most recent runs. */
export async function pruneSyncRuns(): Promise<void> {
  const oldestKept = await CrmSyncModel.find({}, { startedAt: 1 })
    .sort({ startedAt: -1 })
    .skip(KEPT_SYNC_RUNS - 1)
    .limit(1)
    .lean();
  const cut = oldestKept[0]?.startedAt;
  if (cut !== undefined) await CrmSyncModel.deleteMany({ startedAt: trusted({ $lt: cut }) });
}

/** The latest run and the sync state, as GET /crm/syncs/latest reads them. */
export interface LatestSyncRead {
  /** The run under way, else the one finished last; null before the first sync. */
  run: CrmSyncDoc | null;
  state: CrmSyncStateDoc | null;
}

/**
 * The run under way, else the run finished last. A run still `running` whose lease is gone (its
 * process died) is answered as failed, as the next sync will record it.
 */
export async function readLatestSync(now: number, interrupted: string): Promise<LatestSyncRead> {
  const [running, state] = await Promise.all([
    CrmSyncModel.findOne({ outcome: 'running' }).sort({ startedAt: -1 }).lean<CrmSyncDoc>(),
    CrmSyncStateModel.findById(HUBSPOT_SYNC_STATE_ID).lean<CrmSyncStateDoc>(),
  ]);
  if (running !== null) {
    const lease = state?.lease ?? null;
    const alive = lease !== null && lease.syncId === running._id && lease.expiresAt.getTime() > now;
    return { run: alive ? running : { ...running, outcome: 'failed', error: interrupted }, state };
  }
  const finished = await CrmSyncModel.findOne({ outcome: trusted({ $ne: 'running' }) })
    .sort({ finishedAt: -1 })
    .lean<CrmSyncDoc>();
  return { run: finished, state };
}
