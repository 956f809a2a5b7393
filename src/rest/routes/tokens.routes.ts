import { ErrorCode } from '../../errors';
import { issueToken } from '../../services/token.service';
import { envelopeSchema } from '../envelope-schema';
import { IssueTokenInput } from '../inputs/issue-token.input';
import { ok, type RouteDefinition } from '../route-definition';
import { Role } from '../../auth/role';
import { onlyRoles } from '../route-roles';

const issueTokenRoute: RouteDefinition<IssueTokenInput> = {
  method: 'POST',
  path: '/auth/tokens',
  summary: 'Issue a signed token for a member (admin)',
  tag: 'Tokens',
  authenticated: true,
  roles: onlyRoles(
    [Role.ADMIN],
    (caller) => `Issuing tokens needs the admin role; this token has the ${caller.role} role`,
  ),
  errors: [ErrorCode.NOT_FOUND],
  input: IssueTokenInput,
  response: envelopeSchema(
    { token: { type: 'string' }, expires_at: { type: 'string', format: 'date-time' } },
    ['token', 'expires_at'],
  ),
  handler: async (ctx, input) => {
    const issued = await issueToken(ctx, {
      memberId: input.member_id,
      expiresIn: input.expires_in,
    });
    return ok('Token issued', { token: issued.token, expires_at: issued.expiresAt.toISOString() });
  },
};

export const tokensRoutes: RouteDefinition[] = [issueTokenRoute as RouteDefinition];
