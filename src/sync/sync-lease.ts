// trusted(): the operators here are ours, never client input (filters are sanitised globally).
import { trusted } from 'mongoose';
import type { CrmProvider } from '../crm/connector';
import {
  CrmSyncStateModel,
  SYNC_STATE_ID,
  type CrmSyncLease,
  type CrmSyncStateDoc,
} from '../models/crm-sync-state.model';
import { CrmSyncModel } from '../models/crm-sync.model';

/** MongoDB's duplicate key error: the upsert of a taken lease met the existing state document. */
const DUPLICATE_KEY = 11000;

/**
 * One sync at a time across every gateway instance and CLI on the database: a lease in the sync
 * state document, with an owner and an expiry. It is taken only when free or expired, renewed
 * while the sync runs, and every write the sync makes to the state is conditional on still holding
 * it, so a sync whose process stalled past the expiry cannot move the high-water mark of another.
 */
export class SyncLease {
  constructor(
    private readonly owner: string,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Takes the lease for `syncId`; the lease that holds it otherwise (null if taken meanwhile and
   * gone). A lease whose run has written its end is taken over: that sync is only releasing it, and
   * a caller that saw the run end may start the next one at once.
   */
  async acquire(
    syncId: string,
  ): Promise<{ acquired: true } | { acquired: false; holder: CrmSyncLease | null }> {
    const now = new Date(this.now());
    const lease: CrmSyncLease = {
      owner: this.owner,
      syncId,
      expiresAt: new Date(now.getTime() + this.ttlMs),
    };
    let holder: CrmSyncLease | null = null;
    // A few tries: each failed one saw a lease that was released or ended meanwhile.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        await CrmSyncStateModel.findOneAndUpdate(
          {
            _id: SYNC_STATE_ID,
            $or: [{ lease: null }, { 'lease.expiresAt': trusted({ $lte: now }) }],
          },
          { $set: { lease } },
          { upsert: true },
        ).lean();
        return { acquired: true };
      } catch (error) {
        if ((error as { code?: unknown }).code !== DUPLICATE_KEY) throw error;
      }
      const state = await CrmSyncStateModel.findById(SYNC_STATE_ID).lean<CrmSyncStateDoc>();
      holder = state?.lease ?? null;
      if (holder === null) continue;
      if (!(await this.ended(holder.syncId))) break;
      const taken = await CrmSyncStateModel.updateOne(
        { _id: SYNC_STATE_ID, 'lease.syncId': holder.syncId },
        { $set: { lease } },
      );
      if (taken.matchedCount === 1) return { acquired: true };
    }
    return { acquired: false, holder };
  }

  /** Whether the run `syncId` has written its end (its lease is then only being released). */
  private async ended(syncId: string): Promise<boolean> {
    const run = await CrmSyncModel.findById(syncId, { status: 1 }).lean<{ status: string }>();
    return run !== null && run.status !== 'running';
  }

  /** Pushes the expiry out; false when the lease is no longer this sync's (it expired and was taken). */
  async renew(syncId: string): Promise<boolean> {
    const result = await CrmSyncStateModel.updateOne(
      { _id: SYNC_STATE_ID, 'lease.syncId': syncId },
      { $set: { 'lease.expiresAt': new Date(this.now() + this.ttlMs) } },
    );
    return result.matchedCount === 1;
  }

  /** Records a committed sync's high-water mark, if the lease is still this sync's; false otherwise. */
  async commit(
    syncId: string,
    mark: {
      provider: CrmProvider;
      highWaterMark: Date | null;
      snapshotId: string;
      committedAt: Date;
    },
  ): Promise<boolean> {
    const result = await CrmSyncStateModel.updateOne(
      { _id: SYNC_STATE_ID, 'lease.syncId': syncId },
      { $set: mark },
    );
    return result.matchedCount === 1;
  }

  /** Frees the lease, if it is still this sync's. */
  async release(syncId: string): Promise<void> {
    await CrmSyncStateModel.updateOne(
      { _id: SYNC_STATE_ID, 'lease.syncId': syncId },
      { $set: { lease: null } },
    );
  }
}
