// trusted(): the `$in` operators here are ours, never client input (filters are sanitised globally).
import { trusted } from 'mongoose';
import { CrmOwnerLinkModel } from '../models/crm-owner-link.model';
import { MemberModel } from '../models/member.model';
import { SnapshotModel } from '../models/snapshot.model';
import { TeamModel } from '../models/team.model';
import type { CreatedEntities } from './resolve-owners';
import { deleteSnapshotContents } from './snapshot-writer';

/**
 * Undoes an import: every document of its snapshots, the snapshots, and the members, teams and
 * owner links it created (as recorded on its snapshots). Safe to repeat.
 */
export async function discardImport(importId: string): Promise<void> {
  const snapshots = await SnapshotModel.find({ importId }, { _id: 1, created: 1 }).lean();
  const created: CreatedEntities = { memberIds: [], teamIds: [], ownerLinkIds: [] };
  for (const s of snapshots) {
    created.memberIds.push(...(s.created?.memberIds ?? []));
    created.teamIds.push(...(s.created?.teamIds ?? []));
    created.ownerLinkIds.push(...(s.created?.ownerLinkIds ?? []));
  }
  await deleteSnapshotContents(snapshots.map((s) => s._id as string));
  await Promise.all([
    created.ownerLinkIds.length > 0 ? CrmOwnerLinkModel.deleteMany({ _id: trusted({ $in: created.ownerLinkIds }) }) : null,
    created.memberIds.length > 0 ? MemberModel.deleteMany({ _id: trusted({ $in: created.memberIds }) }) : null,
    created.teamIds.length > 0 ? TeamModel.deleteMany({ _id: trusted({ $in: created.teamIds }) }) : null,
  ]);
  await SnapshotModel.deleteMany({ importId });
}

/**
 * Removes what crashed imports left: every import with a snapshot still `pending` (and, with
 * `startedBefore`, only those started before that instant). A pending snapshot of a live import
 * looks the same as a crashed one, so this runs at start-up only; on a database other instances
 * share, start-up passes a cut-off older than any import can take, so a neighbour's running import
 * is never discarded. Answers the number of imports discarded.
 */
export async function discardPendingImports(options: { startedBefore?: Date } = {}): Promise<number> {
  const filter = options.startedBefore
    ? { status: 'pending' as const, importedAt: trusted({ $lt: options.startedBefore }) }
    : { status: 'pending' as const };
  // find + de-duplicate rather than `distinct`: the embedded store need not implement every command.
  const pending = await SnapshotModel.find(filter, { importId: 1 }).lean();
  const importIds = [...new Set(pending.map((s) => s.importId))];
  for (const importId of importIds) await discardImport(importId);
  return importIds.length;
}
