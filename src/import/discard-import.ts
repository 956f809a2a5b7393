// trusted(): the operators here are ours, never client input (filters are sanitised globally).
import { trusted } from 'mongoose';
import { CrmOwnerLinkModel } from '../models/crm-owner-link.model';
import { MemberModel } from '../models/member.model';
import { SnapshotModel } from '../models/snapshot.model';
import { TeamModel } from '../models/team.model';
import { publishImport } from './publish-import';
import { removeCreatedMembers, removeCreatedTeams } from './remove-created';
import { deleteSnapshotContents } from './snapshot-writer';

/**
 * Undoes an import: every document of its snapshots, the owner links it recorded, the members and
 * teams it created and has not published (see removeCreatedMembers/Teams for what is kept), and
 * the snapshots last, so a clean-up cut short is found and finished by the next one. Safe to repeat.
 */
export async function discardImport(importId: string): Promise<void> {
  const snapshots = await SnapshotModel.find({ importId }, { _id: 1, seq: 1, created: 1 }).lean();
  const ownerLinkIds = snapshots.flatMap((s) => s.created?.ownerLinkIds ?? []);
  await deleteSnapshotContents(snapshots.map((s) => ({ id: s._id as string, seq: s.seq ?? null })));
  if (ownerLinkIds.length > 0)
    await CrmOwnerLinkModel.deleteMany({ _id: trusted({ $in: ownerLinkIds }) });
  await removeCreatedMembers(importId);
  await removeCreatedTeams(importId);
  await SnapshotModel.deleteMany({ importId });
}

/**
 * Finishes an import that stopped half-way, either way: one whose snapshots are all committed
 * (it stopped between committing and publishing) is published; any other is discarded.
 */
export async function settleImport(importId: string): Promise<'published' | 'discarded'> {
  const statuses = (await SnapshotModel.find({ importId }, { status: 1 }).lean()).map(
    (s) => s.status,
  );
  if (statuses.length > 0 && statuses.every((status) => status === 'committed')) {
    await publishImport(importId);
    return 'published';
  }
  await discardImport(importId);
  return 'discarded';
}

/**
 * Removes what crashed imports left: every import with a snapshot still `pending` (and, with
 * `startedBefore`, only those started before that instant). A pending snapshot of a live import
 * looks the same as a crashed one, so this runs at start-up only; on a database other instances
 * share, start-up passes a cut-off older than any import can take, so a neighbour's running import
 * is never discarded. Then settles members and teams still marked with an import that has no
 * pending snapshot: published when it committed, removed when its snapshots are gone (a live
 * import writes its snapshot before creating anything, so neither can be a running one).
 * Answers the number of imports discarded.
 */
export async function discardPendingImports(
  options: { startedBefore?: Date } = {},
): Promise<number> {
  const filter = options.startedBefore
    ? { status: 'pending' as const, importedAt: trusted({ $lt: options.startedBefore }) }
    : { status: 'pending' as const };
  // find + de-duplicate rather than `distinct`: the embedded store need not implement every command.
  const pending = await SnapshotModel.find(filter, { importId: 1 }).lean();
  const importIds = [...new Set(pending.map((s) => s.importId))];
  for (const importId of importIds) await discardImport(importId);

  let discarded = importIds.length;
  const stillPending = new Set(
    (await SnapshotModel.find({ status: 'pending' }, { importId: 1 }).lean()).map(
      (s) => s.importId,
    ),
  );
  for (const importId of await markedImportIds()) {
    if (!stillPending.has(importId) && (await settleImport(importId)) === 'discarded')
      discarded += 1;
  }
  return discarded;
}

/** The imports some member or team is still marked with. */
async function markedImportIds(): Promise<Set<string>> {
  const marked = { pendingImportId: trusted({ $ne: null }) };
  const [members, teams] = await Promise.all([
    MemberModel.find(marked, { pendingImportId: 1 }).lean(),
    TeamModel.find(marked, { pendingImportId: 1 }).lean(),
  ]);
  return new Set([...members, ...teams].map((doc) => doc.pendingImportId as string));
}
