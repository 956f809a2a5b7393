/**
 * Internal: the process-wide caches of mutable reads, one per kind of read, each dropped when a
 * collection it depends on is written (see DataVersions). Collection names are the models'.
 */
import type { MemberDoc } from '../models/member.model';
import type { SettingsDoc } from '../models/settings.model';
import type { TargetDoc } from '../models/target.model';
import type { TeamDoc } from '../models/team.model';
import { VersionedCache } from './versioned-cache';

export const readCaches = {
  /** The latest committed snapshot: key `latest`. */
  latestSnapshot: new VersionedCache<{ _id: string; snapshotAt: Date } | null>(['pipeline_snapshots'], 1),
  /** The settings document: key `settings`. */
  settings: new VersionedCache<SettingsDoc | null>(['settings'], 1),
  /** Members by id (full lean documents; authentication reads role and team from them too). */
  membersById: new VersionedCache<MemberDoc | null>(['members']),
  /** Members of a team, in id order. */
  membersByTeam: new VersionedCache<MemberDoc[]>(['members'], 1_000),
  teamsById: new VersionedCache<TeamDoc | null>(['teams']),
  /** Target sets by member and year. */
  targetsByMember: new VersionedCache<TargetDoc | null>(['targets']),
  /** Every member's target sets of a year. */
  targetsByYear: new VersionedCache<TargetDoc[]>(['targets'], 100),
};
