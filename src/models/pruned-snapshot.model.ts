import { Schema, model } from 'mongoose';
import { versionedScope } from '../data/versions-document';

/**
 * A snapshot removed by retention (src/import/prune-snapshots.ts), `_id` its snapshot_id: what
 * lets a request naming it be told why it is gone rather than that it never existed. Written
 * before anything of the snapshot is removed, `done` once all of it is: a removal cut short is
 * finished by the next one. A few hundred bytes per removed snapshot.
 */
const prunedSnapshotSchema = new Schema(
  {
    _id: { type: String, required: true },
    seq: { type: Number, required: true },
    snapshotAt: { type: Date, required: true },
    prunedAt: { type: Date, required: true },
    /** SNAPSHOT_RETENTION_DAYS of the removal. */
    retentionDays: { type: Number, required: true },
    done: { type: Boolean, required: true },
  },
  { collection: 'pruned_snapshots', versionKey: false },
);

prunedSnapshotSchema.index({ done: 1 });

export interface PrunedSnapshotDoc {
  _id: string;
  seq: number;
  snapshotAt: Date;
  prunedAt: Date;
  retentionDays: number;
  done: boolean;
}

// Every write bumps the 'pruned_snapshots' counter: the snapshot cache and kept answers naming a
// snapshot are checked against it, the only way a committed snapshot changes (it goes).
prunedSnapshotSchema.plugin(versionedScope('pruned_snapshots'));

export const PrunedSnapshotModel = model('PrunedSnapshot', prunedSnapshotSchema);
