import { InferSchemaType, Schema, model } from 'mongoose';
import { versionedScope } from '../data/versions-document';
import { carriesEvents } from '../events/outbox/carries-events.plugin';

/** Lifecycle of a snapshot: written as `pending`, flipped to `committed` last. Readers see only committed ones. */
export type SnapshotStatus = 'pending' | 'committed';

export const SNAPSHOT_STATUSES: readonly SnapshotStatus[] = ['pending', 'committed'];

/** What one import counted; stored on every snapshot of the import (and on the sync run that made it). */
export const importCountsSchema = new Schema(
  {
    pipelines: { type: Number, required: true },
    stages: { type: Number, required: true },
    deals: { type: Number, required: true },
    owners: { type: Number, required: true },
    teams: { type: Number, required: true },
    membersCreated: { type: Number, required: true },
  },
  { _id: false },
);

const changesSchema = new Schema(
  {
    updated: { type: Number, default: 0 },
    removed: { type: Number, default: 0 },
  },
  { _id: false },
);

const skippedSchema = new Schema(
  {
    id: { type: String, required: true },
    reason: { type: String, required: true },
  },
  { _id: false },
);

/**
 * Members, teams and owner links an import created, so a failed import (or a pending snapshot
 * left by a crash) can be undone. Recorded before the documents themselves are written.
 */
const createdSchema = new Schema(
  {
    memberIds: { type: [String], default: [] },
    teamIds: { type: [String], default: [] },
    ownerLinkIds: { type: [String], default: [] },
  },
  { _id: false },
);

/**
 * One pipeline snapshot: the state of every definition, pipeline and opportunity at `snapshotAt`.
 * `_id` is the snapshot_id (UUID). An import makes one snapshot, or with backfill one per past
 * period end plus the current one, all sharing `importId` and `sourceHash`.
 */
const snapshotSchema = new Schema(
  {
    _id: { type: String, required: true },
    /**
     * Position in the order snapshots were written (increasing, one import at a time): the
     * snapshot holds the opportunity versions whose span [fromSeq, toSeq) contains it.
     */
    seq: { type: Number, required: true },
    /** The moment represented: explicit snapshot_at, a backfilled period end, or import time. Rendered as created_at. */
    snapshotAt: { type: Date, required: true },
    importedAt: { type: Date, required: true },
    status: { type: String, enum: SNAPSHOT_STATUSES as SnapshotStatus[], required: true },
    importId: { type: String, required: true },
    /** sha256 of the normalised input, snapshot_at and backfill flag: the idempotence key. */
    sourceHash: { type: String, required: true },
    /** True for the demo company's snapshots: the import guard does not protect them. */
    demo: { type: Boolean, default: false },
    /** True for the snapshots backfill reconstructed at past period ends. */
    backfilled: { type: Boolean, default: false },
    counts: { type: importCountsSchema, required: true },
    /** `incremental` when the import carried only the deals that changed (docs/importing.md). */
    mode: { type: String, enum: ['full', 'incremental'], default: 'full' },
    /** Incremental imports: deals carried (added or changed) and deals that left. */
    changes: { type: changesSchema, default: () => ({}) },
    skipped: { type: [skippedSchema], default: [] },
    /** Only on the import's primary (current) snapshot. */
    created: { type: createdSchema, default: () => ({}) },
  },
  { collection: 'pipeline_snapshots', versionKey: false },
);

// "Latest committed snapshot" and time-series lookups.
snapshotSchema.index({ status: 1, snapshotAt: -1 });
snapshotSchema.index({ sourceHash: 1 });
snapshotSchema.index({ importId: 1 });
snapshotSchema.index({ seq: -1 });

export type SnapshotCounts = InferSchemaType<typeof importCountsSchema>;
export type SnapshotDoc = InferSchemaType<typeof snapshotSchema> & {
  _id: string;
  status: SnapshotStatus;
  seq: number;
};

// Every write bumps the 'pipeline_snapshots' version counter, which caches of it are checked against.
snapshotSchema.plugin(versionedScope('pipeline_snapshots'));
// Its writes carry the events they cause (src/events/outbox).
snapshotSchema.plugin(carriesEvents({ publish: false }));

export const SnapshotModel = model('Snapshot', snapshotSchema);
