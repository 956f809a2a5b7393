import { ErrorCode } from '../../errors';
import * as teams from '../../services/team.service';
import type { TeamDoc } from '../../models/team.model';
import { envelopeSchema } from '../envelope-schema';
import { CreateTeamBody, TeamIdInput } from '../inputs/team.inputs';
import { ok, type RouteDefinition } from '../route-definition';
import { adminOnly, EVERY_ROLE } from '../route-roles';

const TAG = 'Teams and members';

const TEAM_SCHEMA = {
  type: 'object',
  required: ['team_id', 'name'],
  properties: { team_id: { type: 'string' }, name: { type: 'string' } },
} as const;

function toRestTeam(doc: TeamDoc) {
  return { team_id: doc._id, name: doc.name };
}

const listTeamsRoute: RouteDefinition = {
  method: 'GET',
  path: '/teams',
  cacheable: true,
  summary: 'List every team',
  tag: TAG,
  authenticated: true,
  roles: EVERY_ROLE,
  response: envelopeSchema({ teams: { type: 'array', items: TEAM_SCHEMA } }, ['teams']),
  handler: async (ctx) => {
    const found = await teams.listTeams(ctx);
    return ok(`${found.length} team(s) found`, { teams: found.map(toRestTeam) });
  },
};

const createTeamRoute: RouteDefinition<CreateTeamBody> = {
  method: 'POST',
  path: '/teams',
  summary: 'Create a team (admin); team_id is generated when absent',
  tag: TAG,
  authenticated: true,
  roles: adminOnly('create teams'),
  errors: [ErrorCode.CONFLICT],
  input: CreateTeamBody,
  response: envelopeSchema({ team: TEAM_SCHEMA }, ['team']),
  handler: async (ctx, input) => {
    const team = await teams.createTeam(ctx, {
      teamId: input.team_id,
      name: input.name,
    });
    return ok('Team created', { team: toRestTeam(team) });
  },
};

const getTeamRoute: RouteDefinition<TeamIdInput> = {
  method: 'GET',
  path: '/teams/:team_id',
  cacheable: true,
  summary: 'Read one team',
  tag: TAG,
  authenticated: true,
  roles: EVERY_ROLE,
  errors: [ErrorCode.NOT_FOUND],
  input: TeamIdInput,
  response: envelopeSchema({ team: TEAM_SCHEMA }, ['team']),
  handler: async (ctx, input) =>
    ok('Team found', {
      team: toRestTeam(await teams.getTeam(ctx, input.team_id)),
    }),
};

export const teamsRoutes: RouteDefinition[] = [
  listTeamsRoute,
  createTeamRoute,
  getTeamRoute,
] as RouteDefinition[];
