import { Schema, model } from 'mongoose';
import { CRM_PROVIDERS, type CrmProvider } from '../crm/connector';

/** The `_id` of the one state document of the CRM sync, whatever the CRM. */
export const SYNC_STATE_ID = 'crm';

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
 * Where the CRM sync stands, across instances (`_id: "crm"`): the cursor (high-water mark), the
 * latest modification time of a committed sync, which the next incremental sync reads from, and
 * the CRM it belongs to; and the lease, which lets one sync run at a time.
 */
const crmSyncStateSchema = new Schema(
  {
    _id: { type: String, required: true },
    /** The CRM the mark was read from: a mark of another CRM means nothing, and the next sync is full. */
    provider: { type: String, enum: [...CRM_PROVIDERS, null], default: null },
    /** Null until a sync committed: the next sync is then full. */
    highWaterMark: { type: Date, default: null },
    /** The snapshot that held the data when the mark was set (the sync's own, or the one it found unchanged), and when. */
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
  provider: CrmProvider | null;
  highWaterMark: Date | null;
  snapshotId: string | null;
  committedAt: Date | null;
  lease: CrmSyncLease | null;
}

export const CrmSyncStateModel = model('CrmSyncState', crmSyncStateSchema);
