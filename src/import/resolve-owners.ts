// trusted(): the `$in` operators here are ours, never client input (filters are sanitised globally).
import { trusted } from 'mongoose';
import { randomUUID } from 'node:crypto';
import { Role } from '../auth/role';
import { CrmOwnerLinkModel } from '../models/crm-owner-link.model';
import { MemberModel, type MemberDoc } from '../models/member.model';
import { TeamModel } from '../models/team.model';
import { createMissing } from './create-missing';
import type { NormalisedOwner, NormalisedTeam } from './normalised.types';

/** Where owners without any HubSpot team go (docs/importing.md). */
export const UNASSIGNED_TEAM: NormalisedTeam = { id: 'unassigned', name: 'Unassigned' };

/**
 * Ids of what an import created, kept on its primary snapshot. Owner links are recorded before
 * they are created, so a failure can remove exactly these; members and teams carry their import's
 * id themselves (`pendingImportId`) until it commits, and are recorded once created.
 */
export interface CreatedEntities {
  memberIds: string[];
  teamIds: string[];
  ownerLinkIds: string[];
}

export interface OwnerResolution {
  /** HubSpot owner id → the member it maps to and that member's team. */
  byOwner: Map<string, { memberId: string; teamId: string }>;
  /** Distinct teams the import's owners belong to in HubSpot (the unassigned team included when used). */
  teamCount: number;
  membersCreated: number;
}

/**
 * Maps owners to members, creating what is missing, and never changing an existing member:
 * an existing link (crm_owner_links) wins, then a member with the same e-mail (case-insensitive),
 * else a new member with role `member` in the owner's primary team (or first, or `unassigned`).
 * Owners' HubSpot teams become teams (id = HubSpot team id) when they do not exist yet.
 *
 * What is created carries `pendingImportId: importId` and stays invisible until the import
 * publishes it; only visible members and teams are matched. A team or e-mail taken meanwhile by
 * an admin is used as if it had been there; one held by another import that has not committed
 * is a 409 (see createMissing). `record` is awaited before links are created with their ids, and
 * after members and teams are created with theirs.
 */
export async function resolveOwners(
  owners: NormalisedOwner[],
  importId: string,
  record: (created: Partial<CreatedEntities>) => Promise<void>,
): Promise<OwnerResolution> {
  const byOwner = new Map<string, { memberId: string; teamId: string }>();
  if (owners.length === 0) return { byOwner, teamCount: 0, membersCreated: 0 };
  const ownerIds = owners.map((o) => o.ownerId);

  // 1. Existing links whose member still exists.
  const links = await CrmOwnerLinkModel.find({ _id: trusted({ $in: ownerIds }) }).lean();
  const linkedMembers = await MemberModel.find(
    { _id: trusted({ $in: links.map((l) => l.memberId) }) },
    { teamId: 1 },
  ).lean();
  const memberTeam = new Map(linkedMembers.map((m) => [m._id as string, m.teamId]));
  const staleLinks: string[] = [];
  for (const link of links) {
    const teamId = memberTeam.get(link.memberId);
    if (teamId !== undefined) byOwner.set(link._id, { memberId: link.memberId, teamId });
    else staleLinks.push(link._id); // its member was deleted: the owner is matched afresh
  }
  if (staleLinks.length > 0)
    await CrmOwnerLinkModel.deleteMany({ _id: trusted({ $in: staleLinks }) });

  // 2. Teams: every importable owner's HubSpot team; the unassigned team only if someone needs it.
  const teamOf = (owner: NormalisedOwner) => owner.team ?? UNASSIGNED_TEAM;
  const teams = new Map<string, NormalisedTeam>();
  for (const owner of owners) teams.set(teamOf(owner).id, teamOf(owner));
  const existingTeams = new Set(
    (await TeamModel.find({ _id: trusted({ $in: [...teams.keys()] }) }, { _id: 1 }).lean()).map(
      (t) => t._id as string,
    ),
  );
  const newTeams = [...teams.values()].filter((t) => !existingTeams.has(t.id));
  const createdTeams = await createMissing(
    TeamModel,
    newTeams.map((t) => ({ _id: t.id, name: t.name, pendingImportId: importId })),
    '_id',
    (id) =>
      TeamModel.exists({ _id: id })
        .lean()
        .then((found) => found !== null),
    (id) =>
      `Team ${id} is being created by another import that has not committed yet; try again once it has`,
  );
  if (createdTeams.length > 0) await record({ teamIds: createdTeams });

  // 3. Members by e-mail, then new members (two owners with one e-mail share one member).
  const unlinked = owners.filter((o) => !byOwner.has(o.ownerId));
  const emails = [...new Set(unlinked.map((o) => o.email.toLowerCase()))];
  const byEmail = new Map<string, { memberId: string; teamId: string }>();
  for (const m of await MemberModel.find(
    { emailLower: trusted({ $in: emails }) },
    { emailLower: 1, teamId: 1 },
  ).lean()) {
    byEmail.set(m.emailLower, { memberId: m._id as string, teamId: m.teamId });
  }
  const newMembers: NewMember[] = [];
  for (const owner of unlinked) {
    const key = owner.email.toLowerCase();
    if (!byEmail.has(key)) {
      const memberId = randomUUID();
      const teamId = teamOf(owner).id;
      byEmail.set(key, { memberId, teamId });
      newMembers.push({
        _id: memberId,
        // Members need both names; HubSpot owners sometimes have neither.
        firstname: owner.firstName || key.split('@')[0],
        lastname: owner.lastName || '(unknown)',
        email: owner.email,
        emailLower: key,
        role: Role.MEMBER,
        teamId,
        pendingImportId: importId,
      });
    }
    // The same object for every owner of one e-mail: repointing it (below) repoints them all.
    byOwner.set(owner.ownerId, byEmail.get(key)!);
  }
  const createdMembers = await createMissing(
    MemberModel,
    newMembers,
    'emailLower',
    async (emailLower) => {
      const found = await MemberModel.findOne({ emailLower }, { teamId: 1 }).lean();
      if (!found) return false;
      Object.assign(byEmail.get(emailLower)!, {
        memberId: found._id as string,
        teamId: found.teamId,
      });
      return true;
    },
    (emailLower) =>
      `A member with e-mail ${emailLower} is being created by another import that has not committed yet; try again once it has`,
  );
  if (createdMembers.length > 0) await record({ memberIds: createdMembers });

  // 4. Links for every owner matched or created now.
  if (unlinked.length > 0) {
    await record({ ownerLinkIds: unlinked.map((o) => o.ownerId) });
    await CrmOwnerLinkModel.insertMany(
      unlinked.map((o) => ({ _id: o.ownerId, memberId: byOwner.get(o.ownerId)!.memberId })),
      { ordered: true },
    );
  }
  return { byOwner, teamCount: teams.size, membersCreated: createdMembers.length };
}

/** A member the import creates: a stored member before its timestamps, marked as the import's. */
type NewMember = Omit<MemberDoc, 'createdAt' | 'updatedAt' | 'pendingImportId'> & {
  pendingImportId: string;
};
