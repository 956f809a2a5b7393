import { Schema, model } from 'mongoose';
import { versionedScope } from '../data/versions-document';

/** Who removed a snapshot: the retention policy after an import, or an admin (DEL /pipelines/snapshots/{id}). */
export type SnapshotRemover = 'retention' | 'admin';

export const SNAPSHOT_REMOVERS: readonly SnapshotRemover[] = ['retention', 'admin'];

/**
 * A snapshot removed by retention or by an admin (src/import/prune-snapshots.ts), `_id` its
 * snapshot_id: what lets a request naming it be told why it is gone rather than that it never
 * existed, and keeps its seq from being given to another snapshot. Written
 * before anything of the snapshot is removed, `done` once all of it is: a removal cut short is
 * finished by the next one. A few hundred bytes per removed snapshot.
 */
const prunedSnapshotSchema = new Schema(
  {
    _id: { type: String, required: true },
    seq: { type: Number, required: true },
    snapshotAt: { type: Date, required: true },
    prunedAt: { type: Date, required: true },
    /** Records written before admins could remove snapshots have none: retention removed them. */
    removedBy: { type: String, enum: SNAPSHOT_REMOVERS as SnapshotRemover[], default: 'retention' },
    /** SNAPSHOT_RETENTION_DAYS of a removal by retention; null for an admin's. */
    retentionDays: { type: Number, default: null },
    done: { type: Boolean, required: true },
  },
  { collection: 'pruned_snapshots', versionKey: false },
);

prunedSnapshotSchema.index({ done: 1 });
// The highest seq ever removed: the next snapshot's seq comes after it (src/import/import-base.ts).
prunedSnapshotSchema.index({ seq: -1 });

export interface PrunedSnapshotDoc {
  _id: string;
  seq: number;
  snapshotAt: Date;
  prunedAt: Date;
  removedBy?: SnapshotRemover;
  retentionDays: number | null;
  done: boolean;
}

// Every write bumps the 'pruned_snapshots' counter: the snapshot cache and kept answers naming a
// snapshot are checked against it, the only way a committed snapshot changes (it goes).
prunedSnapshotSchema.plugin(versionedScope('pruned_snapshots'));

export const PrunedSnapshotModel = model('PrunedSnapshot', prunedSnapshotSchema);
