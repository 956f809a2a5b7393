import { CrmSyncModel } from '../models/crm-sync.model';
import type { SyncProgress } from './crm-sync';

/** A run's progress is written at most this often. */
const WRITE_EVERY_MS = 250;

/** Where a running sync stands, as its run record keeps it (the crmSync subscription reads it). */
export interface RunProgress {
  step: 'reading' | 'owners' | 'snapshots' | 'committing';
  /** Deals read from the CRM so far. */
  dealsRead: number;
  /** The import's units done and expected (0/0 while reading). */
  done: number;
  total: number;
}

/**
 * Wraps a sync's progress callback so that the run record carries where it stands, for any
 * instance to read: written at most every WRITE_EVERY_MS, in the background (a write that fails
 * is only a missed update, never a failed sync).
 */
export function recordProgress(
  syncId: string,
  onProgress: (progress: SyncProgress) => void,
  now: () => number = Date.now,
): (progress: SyncProgress) => void {
  const state: RunProgress = { step: 'reading', dealsRead: 0, done: 0, total: 0 };
  let lastWrite = 0;
  return (progress) => {
    onProgress(progress);
    if (progress.step === 'reading') {
      if (progress.what === 'deals') state.dealsRead = progress.count;
    } else {
      state.step = progress.step;
      state.done = progress.done;
      state.total = progress.total;
    }
    const at = now();
    if (at - lastWrite < WRITE_EVERY_MS && progress.step !== 'committing') return;
    lastWrite = at;
    void CrmSyncModel.updateOne(
      { _id: syncId, outcome: 'running' },
      { $set: { progress: { ...state } } },
    ).catch(() => undefined);
  };
}
