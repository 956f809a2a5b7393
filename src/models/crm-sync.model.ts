import { Schema, model } from 'mongoose';
import { CRM_PROVIDERS, type CrmProvider } from '../crm/connector';
import { carriesEvents } from '../events/outbox/carries-events.plugin';
import { importCountsSchema } from './snapshot.model';

/** Where a sync stands: `running` until it ends. */
export type CrmSyncStatus = 'running' | 'succeeded' | 'failed';
export const CRM_SYNC_STATUSES: readonly CrmSyncStatus[] = ['running', 'succeeded', 'failed'];

/** What started a sync. */
export type CrmSyncTrigger = 'api' | 'cli' | 'schedule';
export const CRM_SYNC_TRIGGERS: readonly CrmSyncTrigger[] = ['api', 'cli', 'schedule'];

export type CrmSyncMode = 'full' | 'incremental';
export const CRM_SYNC_MODES: readonly CrmSyncMode[] = ['full', 'incremental'];

const progressSchema = new Schema(
  {
    /** Deals read from the CRM so far: every one on a full sync, those changed or removed on an incremental one. */
    dealsRead: { type: Number, default: 0 },
  },
  { _id: false },
);

const changesSchema = new Schema(
  {
    added: { type: Number, required: true },
    changed: { type: Number, required: true },
    unchanged: { type: Number, required: true },
    removed: { type: Number, required: true },
  },
  { _id: false },
);

/**
 * One sync run (GET /crm/syncs/{sync_id} reads it): written `running` when it starts, updated with
 * its progress, finished with its outcome. `_id` is the sync id (UUID). The gateway keeps the most
 * recent runs only.
 */
const crmSyncSchema = new Schema(
  {
    _id: { type: String, required: true },
    provider: { type: String, enum: CRM_PROVIDERS as CrmProvider[], required: true },
    trigger: { type: String, enum: CRM_SYNC_TRIGGERS as CrmSyncTrigger[], required: true },
    mode: { type: String, enum: CRM_SYNC_MODES as CrmSyncMode[], required: true },
    status: { type: String, enum: CRM_SYNC_STATUSES as CrmSyncStatus[], required: true },
    startedAt: { type: Date, required: true },
    finishedAt: { type: Date, default: null },
    progress: { type: progressSchema, default: () => ({}) },
    /** The snapshot the sync committed; null while running, on failure, and when nothing changed. */
    snapshotId: { type: String, default: null },
    counts: { type: importCountsSchema, default: null },
    /** The deals compared with the latest snapshot; null until the sync ends well. */
    changes: { type: changesSchema, default: null },
    /** Why it failed. */
    error: { type: String, default: null },
    /** What the import said beside its counts: the demo's removal, deals skipped for their currency. */
    notes: { type: [String], default: [] },
  },
  { collection: 'crm_syncs', versionKey: false },
);

// Listed newest first (GET /crm/syncs); the collection holds at most KEPT_SYNC_RUNS runs.
crmSyncSchema.index({ startedAt: -1, _id: -1 });

export interface CrmSyncChanges {
  added: number;
  changed: number;
  unchanged: number;
  removed: number;
}

// A run's last write carries its sync.succeeded or sync.failed event (src/events/outbox).
crmSyncSchema.plugin(carriesEvents());

export interface CrmSyncDoc {
  _id: string;
  provider: CrmProvider;
  trigger: CrmSyncTrigger;
  mode: CrmSyncMode;
  status: CrmSyncStatus;
  startedAt: Date;
  finishedAt: Date | null;
  progress: { dealsRead: number };
  snapshotId: string | null;
  counts: {
    pipelines: number;
    stages: number;
    deals: number;
    owners: number;
    teams: number;
    membersCreated: number;
  } | null;
  changes: CrmSyncChanges | null;
  error: string | null;
  /** What the import said beside its counts (its message's notes); empty until it succeeded. */
  notes: string[];
}

export const CrmSyncModel = model('CrmSync', crmSyncSchema);
