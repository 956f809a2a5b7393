import { SignJWT, jwtVerify } from 'jose';
import { isRole, type Role } from './role';

/** The bootstrap admin secret's subject (authenticator.ts), which no signed token may carry. */
export const RESERVED_SUBJECT = 'admin-token';

/** Verified tokens remembered at most (then the memory starts over). */
const VERIFIED_TOKENS_KEPT = 10_000;

export interface TokenSignerOptions {
  /** HS256 key, at least 32 bytes. */
  secret: Uint8Array;
  issuer: string;
  audience: string;
}

export interface SignedToken {
  token: string;
  expiresAt: Date;
}

/** What a member token says: who it acts as, and its id. */
export interface TokenSubject {
  memberId: string;
  /** Informative: every request reads the role from the member document. */
  role: Role;
  /** The token's `jti`, the id of its record (src/models/token.model.ts). */
  tokenId: string;
}

/** The claims a verified token carries. The role is informative: the member document decides. */
export interface VerifiedClaims {
  memberId: string;
  role: Role;
  /** `jti`; null for a token signed without one, which authentication refuses. */
  tokenId: string | null;
  /** `exp`, in seconds since the epoch. */
  expiresAt: number;
}

/** Thrown for any token that does not verify; callers turn it into the one 401 message. */
export class InvalidTokenError extends Error {
  constructor(reason: string) {
    super(`Invalid token: ${reason}`);
    this.name = 'InvalidTokenError';
  }
}

/**
 * Signs and verifies member tokens: HS256 only (the verifier pins the algorithm, so `none`,
 * RS256, ES256 and anything else fail), with `iss`, `aud` and `exp` always checked.
 */
export class TokenSigner {
  constructor(private readonly options: TokenSignerOptions) {
    if (options.secret.byteLength < 32) {
      throw new Error(
        `TokenSigner needs a key of at least 32 bytes, got ${options.secret.byteLength}`,
      );
    }
  }

  /** Signs a token for `subject`, issued at `now` (to the second) and valid for `expiresInSeconds`. */
  async sign(
    subject: TokenSubject,
    expiresInSeconds: number,
    now = new Date(),
  ): Promise<SignedToken> {
    const { memberId, role, tokenId } = subject;
    if (memberId === RESERVED_SUBJECT)
      throw new Error(`TokenSigner signs member tokens; "${RESERVED_SUBJECT}" is not a member id`);
    const issuedAt = Math.floor(now.getTime() / 1000);
    const expiresAt = issuedAt + expiresInSeconds;
    const token = await new SignJWT({ role })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setJti(tokenId)
      .setSubject(memberId)
      .setIssuer(this.options.issuer)
      .setAudience(this.options.audience)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(this.options.secret);
    return { token, expiresAt: new Date(expiresAt * 1000) };
  }

  /** Tokens that verified, until their `exp`: a signature and its claims never change. */
  private readonly verified = new Map<string, VerifiedClaims>();

  /** The claims of a token this signer verified before and that has not expired since; else undefined. */
  remembered(token: string): VerifiedClaims | undefined {
    const known = this.verified.get(token);
    return known && Date.now() < known.expiresAt * 1000 ? known : undefined;
  }

  async verify(token: string): Promise<VerifiedClaims> {
    const known = this.remembered(token);
    if (known) return known;
    const claims = await this.verifyOnce(token);
    if (this.verified.size >= VERIFIED_TOKENS_KEPT) this.verified.clear();
    this.verified.set(token, claims);
    return claims;
  }

  private async verifyOnce(token: string): Promise<VerifiedClaims> {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.options.secret, {
        algorithms: ['HS256'],
        issuer: this.options.issuer,
        audience: this.options.audience,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (error) {
      throw new InvalidTokenError(error instanceof Error ? error.message : 'unverifiable');
    }
    if (typeof payload.sub !== 'string' || payload.sub === '' || !isRole(payload.role)) {
      throw new InvalidTokenError('subject or role claim missing');
    }
    // Signed tokens name members; the bootstrap admin's subject is reserved for its secret, so a
    // token carrying it (signed with a leaked key, say) cannot borrow its identity or its rate limit.
    if (payload.sub === RESERVED_SUBJECT) throw new InvalidTokenError('reserved subject');
    const tokenId = typeof payload.jti === 'string' && payload.jti !== '' ? payload.jti : null;
    return { memberId: payload.sub, role: payload.role, tokenId, expiresAt: payload.exp as number };
  }
}
