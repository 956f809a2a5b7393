import DataLoader from 'dataloader';
import { trusted } from 'mongoose';
import { MemberDoc, MemberModel } from '../models/member.model';
import { TeamDoc, TeamModel } from '../models/team.model';
import { TargetDoc, TargetModel } from '../models/target.model';
import type { DataAccess } from '../data/data-access';
import type { RequestData } from '../data/request-data';
import type { LoaderSource } from './lazy-loaders';
import { groupByKeys, orderByKeys } from './order-by-keys';

/** A member's target set for one year. */
export interface MemberYearKey {
  memberId: string;
  year: number;
}

const memberYear = (key: MemberYearKey): string => `${key.memberId}\u0000${key.year}`;

/**
 * Batch functions of the members half, of one request: a class so tests can record the exact
 * batches (on its prototype). Each is
 * one `find` whatever the number of keys (its `$in` marked `trusted()`: filters are sanitised
 * globally, and these operators are ours, built from loader keys); a miss is null (a member deleted mid-request, a year
 * without targets), never an error, so one gap does not fail its siblings.
 */
export class MemberBatches {
  constructor(
    private readonly access: DataAccess,
    private readonly data: RequestData,
  ) {}

  async membersById(ids: readonly string[]): Promise<Array<MemberDoc | Error | null>> {
    // Kept across requests while the members' version stands (DataAccess).
    return this.access.membersById.getMany(this.data, ids, String, async (missing) => {
      const rows = await MemberModel.find({ _id: trusted({ $in: missing }) })
        .lean<MemberDoc[]>()
        .exec();
      return orderByKeys(missing, rows, (m) => m._id) as Array<MemberDoc | null>;
    });
  }

  async teamsById(ids: readonly string[]): Promise<Array<TeamDoc | Error | null>> {
    return this.access.teamsById.getMany(this.data, ids, String, async (missing) => {
      const rows = await TeamModel.find({ _id: trusted({ $in: missing }) })
        .lean<TeamDoc[]>()
        .exec();
      return orderByKeys(missing, rows, (t) => t._id) as Array<TeamDoc | null>;
    });
  }

  /** Every member of each team, in `_id` order (the order `members` lists them in). */
  async membersByTeam(teamIds: readonly string[]): Promise<MemberDoc[][]> {
    return this.access.membersByTeam.getMany(this.data, teamIds, String, async (missing) => {
      const rows = await MemberModel.find({ teamId: trusted({ $in: missing }) })
        .sort({ _id: 1 })
        .lean<MemberDoc[]>()
        .exec();
      return groupByKeys(missing, rows, (m) => m.teamId);
    });
  }

  /**
   * Target sets for (member, year) pairs. One query over the cross product of the ids and years
   * asked for (usually one year), then only the exact pairs are kept.
   */
  async targetsByMember(keys: readonly MemberYearKey[]): Promise<Array<TargetDoc | Error | null>> {
    return this.access.targetsByMember.getMany(this.data, keys, memberYear, async (missing) => {
      const memberIds = [...new Set(missing.map((k) => k.memberId))];
      const years = [...new Set(missing.map((k) => k.year))];
      const rows = await TargetModel.find({
        memberId: trusted({ $in: memberIds }),
        year: trusted({ $in: years }),
      })
        .lean<TargetDoc[]>()
        .exec();
      return orderByKeys(missing, rows, (t) => memberYear(t), {
        keyOf: memberYear,
      }) as Array<TargetDoc | null>;
    });
  }
}

/** Loader factories of the members half of the graph (members, teams, targets), by name. */
export const memberLoaders = {
  memberById: ({ access, data }: LoaderSource) => {
    const batches = new MemberBatches(access, data);
    return new DataLoader<string, MemberDoc | null>((ids) => batches.membersById(ids));
  },
  teamById: ({ access, data }: LoaderSource) => {
    const batches = new MemberBatches(access, data);
    return new DataLoader<string, TeamDoc | null>((ids) => batches.teamsById(ids));
  },
  membersByTeam: ({ access, data }: LoaderSource) => {
    const batches = new MemberBatches(access, data);
    return new DataLoader<string, MemberDoc[]>((ids) => batches.membersByTeam(ids));
  },
  targetsByMember: ({ access, data }: LoaderSource) => {
    const batches = new MemberBatches(access, data);
    return new DataLoader<MemberYearKey, TargetDoc | null, string>(
      (keys) => batches.targetsByMember(keys),
      { cacheKeyFn: memberYear },
    );
  },
};
