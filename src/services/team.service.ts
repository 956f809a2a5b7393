import type { AuthenticatedContext } from '../context/request-context';
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
export async function listTeams(_ctx: AuthenticatedContext): Promise<TeamDoc[]> {
  return TeamModel.find({}).sort({ _id: 1 }).lean<TeamDoc[]>().exec();
}

export async function getTeam(ctx: AuthenticatedContext, teamId: string): Promise<TeamDoc> {
  const team = await ctx.loaders.teamById.load(teamId);
  if (!team) throw new NotFoundError(`Team ${teamId} not found`);
  return team;
}

/**
 * Admin only; a taken `teamId` is a 409 (the `_id` index decides, so concurrent creates cannot both
 * win). An id held by a team an import is creating is taken too, and the message says so: only
 * admins create teams and only admins import, so it tells the caller nothing they could not know.
 */
export async function createTeam(
  ctx: AuthenticatedContext,
  input: CreateTeamInput,
): Promise<TeamDoc> {
  requireAdmin(ctx.principal, 'create teams');
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
