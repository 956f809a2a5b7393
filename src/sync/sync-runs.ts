// trusted(): the operators here are ours, never client input (filters are sanitised globally).
import { trusted } from 'mongoose';
import {
  CrmSyncStateModel,
  SYNC_STATE_ID,
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

/** A run as stored by a gateway before syncs were jobs (`outcome`, `fetched`). */
type StoredRun = Partial<CrmSyncDoc> & {
  _id: string;
  startedAt: Date;
  outcome?: string;
  fetched?: { deals?: number; archived?: number } | null;
};

/**
 * A run as answered: one still `running` whose lease is gone (its process died) reads as failed,
 * as the next sync will record it; a run stored before syncs were jobs reads in today's terms.
 */
function asRun(
  stored: StoredRun,
  state: CrmSyncStateDoc | null,
  now: number,
  interrupted: string,
): CrmSyncDoc {
  const status =
    stored.status ??
    (stored.outcome === 'ok' ? 'succeeded' : stored.outcome === 'running' ? 'running' : 'failed');
  const run: CrmSyncDoc = {
    _id: stored._id,
    provider: stored.provider ?? 'hubspot',
    trigger: stored.trigger ?? 'api',
    mode: stored.mode ?? 'full',
    status,
    startedAt: stored.startedAt,
    finishedAt: stored.finishedAt ?? null,
    progress: {
      dealsRead:
        stored.progress?.dealsRead ??
        (stored.fetched?.deals ?? 0) + (stored.fetched?.archived ?? 0),
    },
    snapshotId: stored.snapshotId ?? null,
    counts: stored.counts ?? null,
    changes: stored.changes ?? null,
    error: stored.error ?? null,
    notes: stored.notes ?? [],
  };
  if (run.status !== 'running') return run;
  const lease = state?.lease ?? null;
  const alive = lease !== null && lease.syncId === run._id && lease.expiresAt.getTime() > now;
  return alive ? run : { ...run, status: 'failed', error: interrupted };
}

async function syncState(): Promise<CrmSyncStateDoc | null> {
  return CrmSyncStateModel.findById(SYNC_STATE_ID).lean<CrmSyncStateDoc>();
}

/** One run by id; null when there is none (or it was pruned). */
export async function readSyncRun(
  syncId: string,
  now: number,
  interrupted: string,
): Promise<CrmSyncDoc | null> {
  const [stored, state] = await Promise.all([
    CrmSyncModel.findById(syncId).lean<StoredRun>(),
    syncState(),
  ]);
  return stored === null ? null : asRun(stored, state, now, interrupted);
}

/** The most recent run (the one under way, if any, is the most recent); null before the first. */
export async function readLatestSyncRun(
  now: number,
  interrupted: string,
): Promise<CrmSyncDoc | null> {
  const [latest] = await listSyncRuns({ limit: 1, after: null }, now, interrupted);
  return latest ?? null;
}

/** Where a page of runs starts: after the run started at `startedAt` with id `id`. */
export interface RunPosition {
  startedAt: Date;
  id: string;
}

/** Runs newest first (by start, then id), `limit` of them after `after`. */
export async function listSyncRuns(
  page: { limit: number; after: RunPosition | null },
  now: number,
  interrupted: string,
): Promise<CrmSyncDoc[]> {
  const after = page.after;
  const filter =
    after === null
      ? {}
      : {
          $or: [
            { startedAt: trusted({ $lt: after.startedAt }) },
            { startedAt: after.startedAt, _id: trusted({ $lt: after.id }) },
          ],
        };
  const [stored, state] = await Promise.all([
    CrmSyncModel.find(filter)
      .sort({ startedAt: -1, _id: -1 })
      .limit(page.limit)
      .lean<StoredRun[]>(),
    syncState(),
  ]);
  return stored.map((run) => asRun(run, state, now, interrupted));
}
