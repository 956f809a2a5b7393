// trusted(): the `$in` operators here are ours, never client input (filters are sanitised globally).
import { trusted } from 'mongoose';
import { randomUUID } from 'node:crypto';
import { Role } from '../auth/role';
import { CrmOwnerLinkModel } from '../models/crm-owner-link.model';
import { MemberModel } from '../models/member.model';
import { TeamModel } from '../models/team.model';
import type { NormalisedOwner, NormalisedTeam } from './normalised.types';

/** Where owners without any HubSpot team go (README "Importing HubSpot data"). */
export const UNASSIGNED_TEAM: NormalisedTeam = { id: 'unassigned', name: 'Unassigned' };

/** Ids of what an import created: recorded before creating, so a failure can remove exactly these. */
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
 * `record` is awaited before each creation with the ids about to be written.
 */
export async function resolveOwners(
  owners: NormalisedOwner[],
  record: (created: Partial<CreatedEntities>) => Promise<void>,
): Promise<OwnerResolution> {
  const byOwner = new Map<string, { memberId: string; teamId: string }>();
  if (owners.length === 0) return { byOwner, teamCount: 0, membersCreated: 0 };
  const ownerIds = owners.map((o) => o.ownerId);

  // 1. Existing links whose member still exists.
  const links = await CrmOwnerLinkModel.find({ _id: trusted({ $in: ownerIds }) }).lean();
  const linkedMembers = await MemberModel.find({ _id: trusted({ $in: links.map((l) => l.memberId) }) }, { teamId: 1 }).lean();
  const memberTeam = new Map(linkedMembers.map((m) => [m._id as string, m.teamId]));
  const staleLinks: string[] = [];
  for (const link of links) {
    const teamId = memberTeam.get(link.memberId);
    if (teamId !== undefined) byOwner.set(link._id, { memberId: link.memberId, teamId });
    else staleLinks.push(link._id); // its member was deleted: the owner is matched afresh
  }
  if (staleLinks.length > 0) await CrmOwnerLinkModel.deleteMany({ _id: trusted({ $in: staleLinks }) });

  // 2. Teams: every importable owner's HubSpot team; the unassigned team only if someone needs it.
  const teamOf = (owner: NormalisedOwner) => owner.team ?? UNASSIGNED_TEAM;
  const teams = new Map<string, NormalisedTeam>();
  for (const owner of owners) teams.set(teamOf(owner).id, teamOf(owner));
  const existingTeams = new Set(
    (await TeamModel.find({ _id: trusted({ $in: [...teams.keys()] }) }, { _id: 1 }).lean()).map((t) => t._id as string),
  );
  const newTeams = [...teams.values()].filter((t) => !existingTeams.has(t.id));
  if (newTeams.length > 0) {
    await record({ teamIds: newTeams.map((t) => t.id) });
    await TeamModel.insertMany(newTeams.map((t) => ({ _id: t.id, name: t.name })), { ordered: true });
  }

  // 3. Members by e-mail, then new members (two owners with one e-mail share one member).
  const unlinked = owners.filter((o) => !byOwner.has(o.ownerId));
  const emails = [...new Set(unlinked.map((o) => o.email.toLowerCase()))];
  const byEmail = new Map<string, { memberId: string; teamId: string }>();
  for (const m of await MemberModel.find({ emailLower: trusted({ $in: emails }) }, { emailLower: 1, teamId: 1 }).lean()) {
    byEmail.set(m.emailLower, { memberId: m._id as string, teamId: m.teamId });
  }
  const newMembers: Record<string, unknown>[] = [];
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
      });
    }
    byOwner.set(owner.ownerId, byEmail.get(key)!);
  }
  if (newMembers.length > 0) {
    await record({ memberIds: newMembers.map((m) => m._id as string) });
    await MemberModel.insertMany(newMembers, { ordered: true });
  }

  // 4. Links for every owner matched or created now.
  if (unlinked.length > 0) {
    await record({ ownerLinkIds: unlinked.map((o) => o.ownerId) });
    await CrmOwnerLinkModel.insertMany(
      unlinked.map((o) => ({ _id: o.ownerId, memberId: byOwner.get(o.ownerId)!.memberId })),
      { ordered: true },
    );
  }
  return { byOwner, teamCount: teams.size, membersCreated: newMembers.length };
}
