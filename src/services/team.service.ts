import type { Principal } from '../auth/principal';
import type { ReadNotes } from '../data/request-data';
import { ConflictError, NotFoundError } from '../errors';
import { TeamDoc, TeamModel } from '../models/team.model';
import { isDuplicateKeyError } from './duplicate-key';
import { requireAdmin } from './member-access';

export interface CreateTeamInput {
  /** Chosen by the client, or a generated UUID when absent. */
  teamId?: string | null;
  name: string;
}

/** Every team, in id order (teams are few: one per sales team). Readable by every role. */
export async function listTeams(_principal: Principal, reads: ReadNotes): Promise<TeamDoc[]> {
  reads.noteRead('teams');
  return TeamModel.find({}).sort({ _id: 1 }).lean<TeamDoc[]>().exec();
}

export async function getTeam(
  _principal: Principal,
  reads: ReadNotes,
  teamId: string,
): Promise<TeamDoc> {
  reads.noteRead('teams');
  const team = await TeamModel.findById(teamId).lean<TeamDoc>().exec();
  if (!team) throw new NotFoundError(`Team ${teamId} not found`);
  return team;
}

/**
 * Admin only; a taken `teamId` is a 409 (the `_id` index decides, so concurrent creates cannot both
 * win). An id held by a team an import is creating is taken too, and the message says so: only
 * admins create teams and only admins import, so it tells the caller nothing they could not know.
 */
export async function createTeam(principal: Principal, input: CreateTeamInput): Promise<TeamDoc> {
  requireAdmin(principal, 'create teams');
  try {
    const created = await TeamModel.create({
      ...(input.teamId ? { _id: input.teamId } : {}),
      name: input.name,
    });
    return created.toObject<TeamDoc>();
  } catch (error) {
    if (!isDuplicateKeyError(error, '_id')) throw error;
    if (await TeamModel.exists({ _id: input.teamId }).exec())
      throw new ConflictError(`Team ${input.teamId} already exists`);
    throw new ConflictError(
      `Team ${input.teamId} is being created by a CRM import that has not committed yet; try again once it has`,
    );
  }
}

/** Throws 404 unless the team exists; used before a member is placed in it. */
export async function assertTeamExists(teamId: string): Promise<void> {
  const found = await TeamModel.exists({ _id: teamId }).exec();
  if (!found) throw new NotFoundError(`Team ${teamId} not found`);
}
