import { trusted, type Model } from 'mongoose';
import { INCLUDE_PENDING_IMPORTS } from '../import/pending-import-visibility';
import { MemberModel } from '../models/member.model';
import { SnapshotModel, type SnapshotDoc } from '../models/snapshot.model';
import { TeamModel } from '../models/team.model';
import type { OutboxEntry } from './outbox/outbox-entry';
import { eventOfEntry, publishFrom, type NewEvent } from './outbox/publish';
import { EVENTS_POLL_COMMENT } from './poll-comment';

/** A committed snapshot as the events of its commit describe it. */
export type CommittedSnapshot = Pick<
  SnapshotDoc,
  '_id' | 'importId' | 'snapshotAt' | 'importedAt' | 'counts' | 'mode' | 'changes' | 'seq'
>;

/**
 * What else a snapshot's commit emits besides `snapshot.committed`, compared with the snapshot
 * of the import before it (null for the first import): alerts whose rule the commit crossed.
 * Every event it answers has an id derived from what it describes, so deriving again after a
 * crash yields the same ids.
 */
export type DeriveSnapshotEvents = (
  snapshot: CommittedSnapshot,
  previous: CommittedSnapshot | null,
) => Promise<NewEvent[]>;

type SnapshotCarrier = CommittedSnapshot & {
  status: SnapshotDoc['status'];
  backfilled: boolean;
  outbox?: OutboxEntry[];
};

const FIELDS = {
  outbox: 1,
  importId: 1,
  status: 1,
  backfilled: 1,
  snapshotAt: 1,
  importedAt: 1,
  counts: 1,
  mode: 1,
  changes: 1,
  seq: 1,
} as const;

/**
 * Publishes the events of every snapshot whose import has committed and published what it
 * created: `snapshot.committed` for the import's current snapshot and what `derive` adds (the
 * backfilled snapshots of an import announce nothing of their own). An import's snapshots carry
 * the event from its commit point (the same update flips them to committed), so an import
 * discarded before it committed takes its events with it, and one that committed but stopped
 * before publishing its members is published by the next import or start-up, then here.
 */
export async function publishSnapshotEvents(derive: DeriveSnapshotEvents): Promise<number> {
  const carriers = await SnapshotModel.find({ 'outbox.id': trusted({ $exists: true }) }, FIELDS)
    .comment(EVENTS_POLL_COMMENT)
    .lean<SnapshotCarrier[]>();
  let published = 0;
  const settled = new Map<string, boolean>();
  for (const carrier of carriers) {
    if (carrier.status !== 'committed') continue;
    if (!settled.has(carrier.importId))
      settled.set(carrier.importId, await importSettled(carrier.importId));
    if (!settled.get(carrier.importId)) continue;
    published += await publishFrom(
      SnapshotModel as unknown as Model<never>,
      [carrier],
      async (_snapshot, entry) => {
        if (carrier.backfilled) return [];
        const committed = eventOfEntry(SnapshotModel.collection.collectionName, carrier._id, {
          ...entry,
          data: committedData(carrier),
        });
        return [committed, ...(await derive(carrier, await previousImport(carrier)))];
      },
    );
  }
  return published;
}

/** Every snapshot of the import committed and every member and team it created published. */
async function importSettled(importId: string): Promise<boolean> {
  const marked = { pendingImportId: importId };
  const [pending, member, team] = await Promise.all([
    SnapshotModel.exists({ importId, status: 'pending' }),
    MemberModel.exists(marked).setOptions(INCLUDE_PENDING_IMPORTS),
    TeamModel.exists(marked).setOptions(INCLUDE_PENDING_IMPORTS),
  ]);
  return !pending && !member && !team;
}

/** The current snapshot of the import committed before this one's, if any. */
async function previousImport(snapshot: CommittedSnapshot): Promise<CommittedSnapshot | null> {
  return SnapshotModel.findOne(
    {
      status: 'committed',
      backfilled: false,
      importId: trusted({ $ne: snapshot.importId }),
      seq: trusted({ $lt: snapshot.seq }),
    },
    FIELDS,
  )
    .sort({ seq: -1 })
    .lean<CommittedSnapshot>();
}

/** The data of `snapshot.committed`. */
function committedData(snapshot: CommittedSnapshot): Record<string, unknown> {
  const { counts } = snapshot;
  return {
    snapshot_id: snapshot._id,
    snapshot_at: snapshot.snapshotAt.toISOString(),
    imported_at: snapshot.importedAt.toISOString(),
    mode: snapshot.mode ?? 'full',
    counts: {
      pipelines: counts.pipelines,
      stages: counts.stages,
      deals: counts.deals,
      owners: counts.owners,
      teams: counts.teams,
      members_created: counts.membersCreated,
    },
  };
}
