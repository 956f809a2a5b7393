import type { Principal } from '../auth/principal';
import { Role } from '../auth/role';
import type { AuthenticatedContext } from '../context/request-context';
import { BadUserInputError, ForbiddenError } from '../errors';
import { getMember } from './member.service';

/** Token lifetimes: one minute to thirty days, one day when not given. */
export const TOKEN_LIFETIME = {
  minSeconds: 60,
  maxSeconds: 30 * 24 * 3600,
  defaultSeconds: 24 * 3600,
} as const;

export interface IssueTokenInput {
  memberId: string;
  /** Seconds; TOKEN_LIFETIME.defaultSeconds when omitted. */
  expiresIn?: number;
}

export interface IssuedToken {
  token: string;
  expiresAt: Date;
  memberId: string;
  role: Role;
}

function requireAdmin(principal: Principal): void {
  if (principal.role !== Role.ADMIN) {
    throw new ForbiddenError(
      `Issuing tokens needs the admin role; this token has the ${principal.role} role`,
    );
  }
}

/**
 * Issues a signed token for an existing member (admin only). The token names the member; its role
 * is re-read from the member document on every request, so it cannot outlive a demotion.
 */
export async function issueToken(
  ctx: AuthenticatedContext,
  input: IssueTokenInput,
): Promise<IssuedToken> {
  requireAdmin(ctx.principal);
  const expiresIn = input.expiresIn ?? TOKEN_LIFETIME.defaultSeconds;
  if (
    !Number.isInteger(expiresIn) ||
    expiresIn < TOKEN_LIFETIME.minSeconds ||
    expiresIn > TOKEN_LIFETIME.maxSeconds
  ) {
    throw new BadUserInputError(
      `expires_in must be a whole number of seconds from ${TOKEN_LIFETIME.minSeconds} to ${TOKEN_LIFETIME.maxSeconds}, got ${String(expiresIn)}`,
      [
        {
          field: 'expires_in',
          message: `must be from ${TOKEN_LIFETIME.minSeconds} to ${TOKEN_LIFETIME.maxSeconds} seconds, got ${String(expiresIn)}`,
        },
      ],
    );
  }
  const member = await getMember(ctx, input.memberId);
  const { token, expiresAt } = await ctx.tokenSigner.sign(member._id, member.role, expiresIn);
  return { token, expiresAt, memberId: member._id, role: member.role };
}
