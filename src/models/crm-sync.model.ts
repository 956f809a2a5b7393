import { Schema, model } from 'mongoose';
import { carriesEvents } from '../events/outbox/carries-events.plugin';
import { importCountsSchema } from './snapshot.model';

/** How a sync ended: `running` until it does; `skipped` when another sync held the lease. */
export type CrmSyncOutcome = 'running' | 'ok' | 'failed' | 'skipped';
export const CRM_SYNC_OUTCOMES: readonly CrmSyncOutcome[] = ['running', 'ok', 'failed', 'skipped'];

/** What started a sync. */
export type CrmSyncTrigger = 'api' | 'cli' | 'schedule';
export const CRM_SYNC_TRIGGERS: readonly CrmSyncTrigger[] = ['api', 'cli', 'schedule'];

export type CrmSyncMode = 'full' | 'incremental';
export const CRM_SYNC_MODES: readonly CrmSyncMode[] = ['full', 'incremental'];

/** What the sync read from HubSpot: deals changed (or all, on a full sync), and deals archived. */
const fetchedSchema = new Schema(
  {
    deals: { type: Number, required: true },
    archived: { type: Number, required: true },
  },
  { _id: false },
);

/**
 * One sync run (GET /crm/syncs/latest reads them): written `running` when it starts, finished with
 * its outcome. `_id` is the sync id (UUID). The gateway keeps the most recent runs only.
 */
const crmSyncSchema = new Schema(
  {
    _id: { type: String, required: true },
    trigger: { type: String, enum: CRM_SYNC_TRIGGERS as CrmSyncTrigger[], required: true },
    /** Null until the sync knows it (and for a skipped one). */
    mode: { type: String, enum: CRM_SYNC_MODES as CrmSyncMode[], default: null },
    outcome: { type: String, enum: CRM_SYNC_OUTCOMES as CrmSyncOutcome[], required: true },
    startedAt: { type: Date, required: true },
    finishedAt: { type: Date, default: null },
    snapshotId: { type: String, default: null },
    /** True when the import found the same data imported before (nothing written). */
    reused: { type: Boolean, default: false },
    counts: { type: importCountsSchema, default: null },
    fetched: { type: fetchedSchema, default: null },
    /** Why it failed or was skipped. */
    error: { type: String, default: null },
    /** Where a running sync stands (src/sync/run-progress.ts); its last state once it ended. */
    progress: { type: Schema.Types.Mixed, default: null },
  },
  { collection: 'crm_syncs', versionKey: false },
);

// No secondary index: the collection holds at most KEPT_SYNC_RUNS (200) runs, read a few at a time.

// A run's last write carries its sync.succeeded or sync.failed event (src/events/outbox).
crmSyncSchema.plugin(carriesEvents());

export interface CrmSyncDoc {
  _id: string;
  trigger: CrmSyncTrigger;
  mode: CrmSyncMode | null;
  outcome: CrmSyncOutcome;
  startedAt: Date;
  finishedAt: Date | null;
  snapshotId: string | null;
  reused: boolean;
  counts: {
    pipelines: number;
    stages: number;
    deals: number;
    owners: number;
    teams: number;
    membersCreated: number;
  } | null;
  fetched: { deals: number; archived: number } | null;
  error: string | null;
}

export const CrmSyncModel = model('CrmSync', crmSyncSchema);
