import { trusted } from 'mongoose';
import type { TokenSigner } from '../auth/jwt';
import type { Principal } from '../auth/principal';
import { Role } from '../auth/role';
import type { AuthenticatedContext } from '../context/request-context';
import { BadUserInputError, ForbiddenError, NotFoundError, UnauthenticatedError } from '../errors';
import { MemberModel } from '../models/member.model';
import { TokenModel, newTokenId, type TokenDoc } from '../models/token.model';
import { getMember } from './member.service';
import { requireAdmin } from './member-access';

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
  /** The token's `jti`, which lists and revokes it. */
  tokenId: string;
  issuedAt: Date;
  expiresAt: Date;
  memberId: string;
  role: Role;
}

export interface ListTokensInput {
  memberId: string;
  /** 1–100 (validated by the input classes). */
  limit: number;
  /** Decoded cursor: list tokens whose id sorts after this one. */
  afterId?: string | null;
}

export interface TokenPage {
  tokens: TokenDoc[];
  /** Whether a further page exists; its cursor points after the last token of this one. */
  hasMore: boolean;
}

/** What a revocation found: the token's record as it now is, and whether this call revoked it. */
export interface RevokedToken {
  token: TokenDoc & { revokedAt: Date };
  /** False when it was revoked before (by hand, or with its member or issuer). */
  revokedNow: boolean;
}

function requireIssuer(principal: Principal): void {
  if (principal.role !== Role.ADMIN) {
    throw new ForbiddenError(
      `Issuing tokens needs the admin role; this token has the ${principal.role} role`,
    );
  }
}

/** Who issues or revokes: an admin member's id, or `admin-token` for the bootstrap secret. */
function actorOf(principal: Principal): string {
  return principal.memberId ?? principal.subject;
}

/**
 * Why issuing takes no Idempotency-Key (REST and GraphQL): a replay would need the token kept.
 */
export const ISSUED_TOKEN_NOT_KEPT =
  'its answer holds the token, which the gateway never keeps; issuing again is harmless (a token issued and lost can be revoked by its token_id)';

/**
 * Issues a signed token for an existing member (admin only), with its record (recordAndSign). The
 * token names the member; its role is re-read from the member document on every request, so it
 * cannot outlive a demotion.
 */
export async function issueToken(
  ctx: AuthenticatedContext,
  input: IssueTokenInput,
): Promise<IssuedToken> {
  requireIssuer(ctx.principal);
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
  const issuer = ctx.principal.memberId;
  const issued = await recordAndSign(ctx.tokenSigner, member, actorOf(ctx.principal), expiresIn);
  // An admin deleted while this request ran: their deletion revoked the tokens they issued that
  // were recorded by then, and this one may have come after. The deletion came first if the
  // member is gone now, so this check sees it.
  if (issuer !== null && !(await MemberModel.exists({ _id: issuer }).exec())) {
    await TokenModel.updateOne({ _id: issued.tokenId }, { $set: { revokedAt: new Date() } }).exec();
    throw new UnauthenticatedError();
  }
  return issued;
}

/**
 * Writes a token's record, then signs the token: the one way a member token comes to be
 * (issueToken, and test set-up), so that no token exists that could not be listed and revoked.
 * `issuedBy`: an admin member's id, or `admin-token`.
 */
export async function recordAndSign(
  signer: TokenSigner,
  member: { _id: string; role: Role },
  issuedBy: string,
  expiresInSeconds: number,
): Promise<IssuedToken> {
  // A JWT counts in whole seconds: the record holds the token's own `iat` and `exp`.
  const issuedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
  const expiresAt = new Date(issuedAt.getTime() + expiresInSeconds * 1000);
  const tokenId = newTokenId();
  await TokenModel.create({
    _id: tokenId,
    memberId: member._id,
    issuedBy,
    issuedAt,
    expiresAt,
    revokedAt: null,
  });
  const { token } = await signer.sign(
    { memberId: member._id, role: member.role, tokenId },
    expiresInSeconds,
    issuedAt,
  );
  return { token, tokenId, issuedAt, expiresAt, memberId: member._id, role: member.role };
}

/**
 * A member's live tokens (neither revoked nor expired) in the order they were issued, one page at
 * a time (admin only; 404 for an unknown member). Never the tokens themselves: only their records.
 */
export async function listTokens(
  ctx: AuthenticatedContext,
  input: ListTokensInput,
): Promise<TokenPage> {
  requireAdmin(ctx.principal, 'list tokens');
  await getMember(ctx, input.memberId);
  const filter: Record<string, unknown> = {
    memberId: input.memberId,
    revokedAt: null,
    // trusted(): the operators are ours, not client input (filters are sanitised globally).
    expiresAt: trusted({ $gt: new Date() }),
  };
  if (input.afterId) filter._id = trusted({ $gt: input.afterId });
  const found = await TokenModel.find(filter)
    .sort({ _id: 1 })
    .limit(input.limit + 1)
    .lean<TokenDoc[]>()
    .exec();
  return { tokens: found.slice(0, input.limit), hasMore: found.length > input.limit };
}

/**
 * Revokes one token: an admin any, a member (or manager) their own. From the next request on it
 * answers 401 on every instance (the `tokens` version moves with the write). A token revoked
 * before is answered as it is, so a revocation can be sent again safely; an unknown id (or one
 * whose record went, a day after the token expired) is a 404.
 */
export async function revokeToken(
  ctx: AuthenticatedContext,
  tokenId: string,
): Promise<RevokedToken> {
  const found = await TokenModel.findById(tokenId).lean<TokenDoc>().exec();
  if (!found) throw new NotFoundError(`Token ${tokenId} not found`);
  const { principal } = ctx;
  if (principal.role !== Role.ADMIN && found.memberId !== principal.memberId) {
    throw new ForbiddenError(
      `Only an admin may revoke another member's token; token ${tokenId} is not the caller's`,
    );
  }
  if (found.revokedAt !== null)
    return { token: { ...found, revokedAt: found.revokedAt }, revokedNow: false };
  const revokedAt = new Date();
  const { modifiedCount } = await TokenModel.updateOne(
    { _id: tokenId, revokedAt: null },
    { $set: { revokedAt } },
  ).exec();
  if (modifiedCount === 1) return { token: { ...found, revokedAt }, revokedNow: true };
  // Revoked by another request meanwhile (or its record went): answer what is stored now.
  const now = await TokenModel.findById(tokenId).lean<TokenDoc>().exec();
  if (!now || now.revokedAt === null) throw new NotFoundError(`Token ${tokenId} not found`);
  return { token: { ...now, revokedAt: now.revokedAt }, revokedNow: false };
}
