import { ErrorCode } from '../../errors';
import type { TokenDoc } from '../../models/token.model';
import { decodeCursor, encodeCursor } from '../../services/pipeline-cursor';
import {
  ISSUED_TOKEN_NOT_KEPT,
  issueToken,
  listTokens,
  revokeToken,
} from '../../services/token.service';
import { envelopeSchema } from '../envelope-schema';
import { IssueTokenInput } from '../inputs/issue-token.input';
import { ListTokensQuery, TokenIdInput } from '../inputs/token.inputs';
import { ok, type RouteDefinition } from '../route-definition';
import { Role } from '../../auth/role';
import { adminOnly, EVERY_ROLE, onlyRoles } from '../route-roles';

const TAG = 'Tokens';

const DATE_TIME = { type: 'string', format: 'date-time' } as const;

/** A token's record as listed: never the token itself. */
const TOKEN_SCHEMA = {
  type: 'object',
  required: ['token_id', 'member_id', 'issued_by', 'issued_at', 'expires_at'],
  properties: {
    token_id: { type: 'string' },
    member_id: { type: 'string' },
    issued_by: {
      type: 'string',
      description: 'The admin member who issued it, or "admin-token" for the bootstrap secret',
    },
    issued_at: DATE_TIME,
    expires_at: DATE_TIME,
  },
} as const;

const REVOKED_TOKEN_SCHEMA = {
  ...TOKEN_SCHEMA,
  required: [...TOKEN_SCHEMA.required, 'revoked_at'],
  properties: { ...TOKEN_SCHEMA.properties, revoked_at: DATE_TIME },
} as const;

function toRestToken(doc: TokenDoc) {
  return {
    token_id: doc._id,
    member_id: doc.memberId,
    issued_by: doc.issuedBy,
    issued_at: doc.issuedAt.toISOString(),
    expires_at: doc.expiresAt.toISOString(),
  };
}

const issueTokenRoute: RouteDefinition<IssueTokenInput> = {
  method: 'POST',
  path: '/auth/tokens',
  summary: 'Issue a signed token for a member (admin)',
  tag: TAG,
  authenticated: true,
  roles: onlyRoles(
    [Role.ADMIN],
    (caller) => `Issuing tokens needs the admin role; this token has the ${caller.role} role`,
  ),
  errors: [ErrorCode.NOT_FOUND],
  refusesIdempotencyKey: ISSUED_TOKEN_NOT_KEPT,
  input: IssueTokenInput,
  response: envelopeSchema(
    { token: { type: 'string' }, token_id: { type: 'string' }, expires_at: DATE_TIME },
    ['token', 'token_id', 'expires_at'],
  ),
  handler: async (ctx, input) => {
    const issued = await issueToken(ctx, {
      memberId: input.member_id,
      expiresIn: input.expires_in,
    });
    return ok('Token issued', {
      token: issued.token,
      token_id: issued.tokenId,
      expires_at: issued.expiresAt.toISOString(),
    });
  },
};

// Not cacheable: which tokens are live depends on the clock.
const listTokensRoute: RouteDefinition<ListTokensQuery> = {
  method: 'GET',
  path: '/auth/tokens',
  summary: "List a member's live tokens, in issue order, paginated with limit and cursor (admin)",
  tag: TAG,
  authenticated: true,
  roles: adminOnly('list tokens'),
  errors: [ErrorCode.NOT_FOUND],
  input: ListTokensQuery,
  response: envelopeSchema(
    { tokens: { type: 'array', items: TOKEN_SCHEMA }, next_cursor: { type: ['string', 'null'] } },
    ['tokens', 'next_cursor'],
  ),
  handler: async (ctx, input) => {
    const page = await listTokens(ctx, {
      memberId: input.member_id,
      limit: input.limit,
      afterId: input.cursor ? decodeCursor('t', input.cursor, 'cursor') : null,
    });
    const last = page.tokens[page.tokens.length - 1];
    return ok(`${page.tokens.length} live token(s) of member ${input.member_id}`, {
      tokens: page.tokens.map(toRestToken),
      next_cursor: page.hasMore && last ? encodeCursor('t', last._id) : null,
    });
  },
};

/** `DEL`/`DELETE /auth/tokens/{token_id}` (the server maps `DEL` to `DELETE`). */
const revokeTokenRoute: RouteDefinition<TokenIdInput> = {
  method: 'DELETE',
  path: '/auth/tokens/:token_id',
  summary: 'Revoke a token (admin: any; a member: their own); 401 for it from the next request on',
  tag: TAG,
  authenticated: true,
  // A member revokes their own tokens: the service decides whose.
  roles: EVERY_ROLE,
  errors: [ErrorCode.NOT_FOUND],
  input: TokenIdInput,
  response: envelopeSchema({ token: REVOKED_TOKEN_SCHEMA }, ['token']),
  handler: async (ctx, input) => {
    const { token, revokedNow } = await revokeToken(ctx, input.token_id);
    const message = revokedNow
      ? `Token ${token._id} revoked`
      : `Token ${token._id} was already revoked`;
    return ok(message, {
      token: { ...toRestToken(token), revoked_at: token.revokedAt.toISOString() },
    });
  },
};

export const tokensRoutes: RouteDefinition[] = [
  issueTokenRoute,
  listTokensRoute,
  revokeTokenRoute,
] as RouteDefinition[];
