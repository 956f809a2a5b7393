import { ErrorCode } from '../../errors';
import * as targets from '../../services/target.service';
import { envelopeSchema } from '../envelope-schema';
import { GetTargetsInput, SetTargetsBody } from '../inputs/target.inputs';
import { ok, type RouteDefinition } from '../route-definition';
import { adminOrManager, EVERY_ROLE } from '../route-roles';

const TAG = 'Targets';

const TARGETS_RESPONSE = envelopeSchema(
  {
    member_id: { type: 'string' },
    year: { type: 'integer' },
    period: { type: 'string', enum: ['weekly', 'monthly', 'quarterly'] },
    currency: { type: 'string' },
    targets: {
      type: 'array',
      items: {
        type: 'object',
        required: ['period', 'amount'],
        properties: { period: { type: 'string' }, amount: { type: 'number' } },
      },
    },
  },
  ['member_id', 'year', 'period', 'currency', 'targets'],
);

function toRest(set: targets.TargetSet) {
  return {
    member_id: set.memberId,
    year: set.year,
    period: set.period,
    currency: set.currency,
    targets: set.targets,
  };
}

const setTargetsRoute: RouteDefinition<SetTargetsBody> = {
  method: 'POST',
  path: '/teams/members/:member_id/targets',
  summary: "Set (replace) a member's targets for a year (admin, or the member's manager)",
  tag: TAG,
  authenticated: true,
  roles: adminOrManager("A member may not set targets; an admin or the member's manager may"),
  errors: [ErrorCode.NOT_FOUND, ErrorCode.CONFLICT],
  input: SetTargetsBody,
  response: TARGETS_RESPONSE,
  handler: async (ctx, input) => {
    const set = await targets.setMemberTargets(ctx, {
      memberId: input.member_id,
      year: input.year,
      amounts: input.targets,
    });
    return ok(`Targets set for ${set.year}`, toRest(set));
  },
};

const getTargetsRoute: RouteDefinition<GetTargetsInput> = {
  method: 'GET',
  path: '/teams/members/:member_id/targets',
  cacheable: true,
  summary: "Read a member's targets for a year (admin, own team manager, or the member)",
  tag: TAG,
  authenticated: true,
  roles: EVERY_ROLE,
  errors: [ErrorCode.NOT_FOUND],
  input: GetTargetsInput,
  response: TARGETS_RESPONSE,
  handler: async (ctx, input) => {
    const set = await targets.getMemberTargets(ctx, input.member_id, input.year);
    return ok(`Targets found for ${set.year}`, toRest(set));
  },
};

export const targetsRoutes: RouteDefinition[] = [
  setTargetsRoute,
  getTargetsRoute,
] as RouteDefinition[];
