import { SnapshotModel } from '../../src/models/snapshot.model';
import { opportunitiesAt, type OpportunityRow } from '../../src/import/snapshot-writer';

/** The opportunities a snapshot holds (its opportunity versions), sorted by deal id; none when the snapshot is gone. */
export async function opportunitiesOf(snapshotId: string): Promise<OpportunityRow[]> {
  const snapshot = await SnapshotModel.findById(snapshotId, { seq: 1 }).lean();
  return snapshot ? opportunitiesAt(snapshot.seq) : [];
}
