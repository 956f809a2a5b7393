// trusted(): the `$in` operators here are ours, never client input (filters are sanitised globally).
import { trusted } from 'mongoose';
import { CrmOwnerLinkModel } from '../models/crm-owner-link.model';
import { MemberModel } from '../models/member.model';
import { TargetModel } from '../models/target.model';
import { TeamModel } from '../models/team.model';
import { INCLUDE_PENDING_IMPORTS } from './pending-import-visibility';

const UNMARK = { $unset: { pendingImportId: 1 } };

/**
 * Deletes the members an import created and has not published, except those something still
 * points at (targets, owner links other than the import's own, which go first): those are
 * published instead, since deleting them would leave that reference dangling. Callers cannot
 * reach a pending member to hang anything on it, so this only guards against the unforeseen.
 */
export async function removeCreatedMembers(importId: string): Promise<void> {
  const ids = (await MemberModel.find({ pendingImportId: importId }, { _id: 1 }).lean()).map(
    (m) => m._id as string,
  );
  if (ids.length === 0) return;
  const inIds = { memberId: trusted({ $in: ids }) };
  const [targets, links] = await Promise.all([
    TargetModel.find(inIds, { memberId: 1 }).lean(),
    CrmOwnerLinkModel.find(inIds, { memberId: 1 }).lean(),
  ]);
  const referenced = new Set([...targets, ...links].map((r) => r.memberId));
  if (referenced.size > 0) {
    await MemberModel.updateMany(
      { _id: trusted({ $in: [...referenced] }), pendingImportId: importId },
      UNMARK,
    );
  }
  const unreferenced = ids.filter((id) => !referenced.has(id));
  if (unreferenced.length > 0)
    await MemberModel.deleteMany({
      _id: trusted({ $in: unreferenced }),
      pendingImportId: importId,
    });
}

/**
 * Deletes the teams an import created and has not published, except those a member still points
 * at, whoever created that member (run removeCreatedMembers first, so the import's own members
 * are gone). A team some visible member points at is published; one only members of other
 * pending imports point at is handed to one of those imports, which publishes or removes it.
 */
export async function removeCreatedTeams(importId: string): Promise<void> {
  const ids = (await TeamModel.find({ pendingImportId: importId }, { _id: 1 }).lean()).map(
    (t) => t._id as string,
  );
  if (ids.length === 0) return;
  const users = await MemberModel.find(
    { teamId: trusted({ $in: ids }) },
    { teamId: 1, pendingImportId: 1 },
  )
    .setOptions(INCLUDE_PENDING_IMPORTS)
    .lean();
  const visiblyUsed = new Set<string>();
  const heirs = new Map<string, string>();
  for (const member of users) {
    if (member.pendingImportId == null) visiblyUsed.add(member.teamId);
    else heirs.set(member.teamId, member.pendingImportId);
  }
  if (visiblyUsed.size > 0)
    await TeamModel.updateMany(
      { _id: trusted({ $in: [...visiblyUsed] }), pendingImportId: importId },
      UNMARK,
    );
  for (const [teamId, heir] of heirs) {
    if (!visiblyUsed.has(teamId))
      await TeamModel.updateOne(
        { _id: teamId, pendingImportId: importId },
        { $set: { pendingImportId: heir } },
      );
  }
  const unused = ids.filter((id) => !visiblyUsed.has(id) && !heirs.has(id));
  if (unused.length > 0)
    await TeamModel.deleteMany({ _id: trusted({ $in: unused }), pendingImportId: importId });
}
