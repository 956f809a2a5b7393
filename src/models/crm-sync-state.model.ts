import { Schema, model } from 'mongoose';

/** The `_id` of the one state document of the HubSpot sync. */
export const HUBSPOT_SYNC_STATE_ID = 'hubspot';

const leaseSchema = new Schema(
  {
    /** The gateway instance or CLI process holding it. */
    owner: { type: String, required: true },
    /** The sync it runs. */
    syncId: { type: String, required: true },
    /** Renewed while the sync runs; past it, another sync may take the lease. */
    expiresAt: { type: Date, required: true },
  },
  { _id: false },
);

/**
 * Where the HubSpot sync stands, across instances (`_id: "hubspot"`): the high-water mark, the
 * latest `hs_lastmodifieddate` of a committed sync, which the next incremental sync reads from;
 * and the lease, which lets one sync run at a time.
 */
const crmSyncStateSchema = new Schema(
  {
    _id: { type: String, required: true },
    /** Null until a sync committed: the next sync is then full. */
    highWaterMark: { type: Date, default: null },
    /** The snapshot of the sync that set the mark, and when. */
    snapshotId: { type: String, default: null },
    committedAt: { type: Date, default: null },
    lease: { type: leaseSchema, default: null },
  },
  { collection: 'crm_sync_state', versionKey: false },
);

export interface CrmSyncLease {
  owner: string;
  syncId: string;
  expiresAt: Date;
}

export interface CrmSyncStateDoc {
  _id: string;
  highWaterMark: Date | null;
  snapshotId: string | null;
  committedAt: Date | null;
  lease: CrmSyncLease | null;
}

export const CrmSyncStateModel = model('CrmSyncState', crmSyncStateSchema);
