// trusted(): the `$in` operators here are ours, never client input (filters are sanitised globally).
import { trusted } from 'mongoose';
import { CrmOwnerLinkModel } from '../models/crm-owner-link.model';
import { MemberModel } from '../models/member.model';

/**
 * For an incremental import: the members that owners its deals `named`, not among the import's
 * `owners`, are linked to already (crm_owner_links), with the member's team. Owners linked to
 * nobody are left out.
 */
export async function linkedOwners(
  named: Iterable<string>,
  resolved: Map<string, { memberId: string; teamId: string }>,
): Promise<Map<string, { memberId: string; teamId: string }>> {
  const byOwner = new Map<string, { memberId: string; teamId: string }>();
  const ownerIds = [...named].filter((id) => !resolved.has(id));
  if (ownerIds.length === 0) return byOwner;
  const links = await CrmOwnerLinkModel.find({ _id: trusted({ $in: ownerIds }) }).lean();
  const members = await MemberModel.find(
    { _id: trusted({ $in: links.map((l) => l.memberId) }) },
    { teamId: 1 },
  ).lean();
  const teamOf = new Map(members.map((m) => [m._id as string, m.teamId]));
  for (const link of links) {
    const teamId = teamOf.get(link.memberId);
    if (teamId !== undefined) byOwner.set(link._id as string, { memberId: link.memberId, teamId });
  }
  return byOwner;
}
