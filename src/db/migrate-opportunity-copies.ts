import type { Connection } from 'mongoose';
import {
  rowOf,
  writeOpportunityVersions,
  type OpportunityRow,
  type StoredOpportunity,
} from '../import/snapshot-writer';
import { OpportunityModel } from '../models/opportunity.model';
import { SnapshotModel } from '../models/snapshot.model';

/** Where databases written before opportunity versions kept a copy of every deal per snapshot. */
export const OPPORTUNITY_COPIES_COLLECTION = 'opportunities';

type OpportunityCopy = StoredOpportunity & { _id: string; snapshotId: string };

/**
 * Start-up step: converts a database whose snapshots each hold a copy of every deal (collection
 * `opportunities`, `_id` `<snapshotId>:<dealId>`) to opportunity versions. Each committed snapshot
 * gets a seq (by import time, then the moment represented), and its copies are written as the
 * versions of that seq, a version only where a deal changed. Answers the number of snapshots
 * converted, 0 when there was nothing to convert.
 *
 * Crash-safe and idempotent: until the copies are dropped, last, every run starts over (the
 * versions are all derived from the copies; no import runs before this step finishes). Pending
 * snapshots are left to the clean-up of crashed imports that follows it.
 */
export async function migrateOpportunityCopies(connection: Connection): Promise<number> {
  const copies = connection.db!.collection<OpportunityCopy>(OPPORTUNITY_COPIES_COLLECTION);
  const hasCopies = (await copies.findOne({}, { projection: { _id: 1 } })) !== null;
  // A database whose snapshots never held a deal has no copies, but its snapshots need a seq too.
  if (!hasCopies && (await SnapshotModel.exists({ status: 'committed', seq: null })) === null)
    return 0;
  await OpportunityModel.deleteMany({});
  const snapshots = await SnapshotModel.find({ status: 'committed' }, { _id: 1, snapshotAt: 1 })
    .sort({ importedAt: 1, snapshotAt: 1, _id: 1 })
    .lean();
  let seq = 0;
  for (const snapshot of snapshots) {
    seq += 1;
    await SnapshotModel.updateOne({ _id: snapshot._id }, { $set: { seq } });
    const rows: OpportunityRow[] = (
      await copies.find({ snapshotId: snapshot._id as string }).toArray()
    ).map(rowOf);
    await writeOpportunityVersions(seq, new Date(snapshot.snapshotAt), rows, () => undefined);
  }
  if (hasCopies) await copies.drop();
  return snapshots.length;
}
