import { UnauthenticatedError } from '../errors';
import type { DataAccess } from '../data/data-access';
import type { RequestData } from '../data/request-data';
import { MemberModel, type MemberDoc } from '../models/member.model';
import { TokenModel, type TokenDoc } from '../models/token.model';
import { secretMatcher } from './constant-time';
import { InvalidTokenError, RESERVED_SUBJECT, type TokenSigner, type VerifiedClaims } from './jwt';
import type { Principal } from './principal';
import { Role } from './role';

/** Subject of the bootstrap ADMIN_TOKEN principal; reserved: the signer refuses it in tokens. */
export const ADMIN_TOKEN_SUBJECT = RESERVED_SUBJECT;

// Any visible characters: ADMIN_TOKEN may be chosen freely (JWTs are base64url and dots).
const BEARER = /^Bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i;

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(authorization: unknown): string | null {
  if (typeof authorization !== 'string') return null;
  const match = BEARER.exec(authorization);
  return match ? match[1] : null;
}

/**
 * Where the bootstrap admin secret comes from: a value fixed for the life of the app (`ADMIN_TOKEN`,
 * or the file in DATA_DIR, which only changes while no gateway runs on it; undefined disables it),
 * or the database, where `npm run admin-token -- --rotate` may replace it while instances run.
 */
export type AdminTokenSource =
  | { kind: 'fixed'; value: string | undefined }
  | { kind: 'stored'; read: () => Promise<string | null> };

export interface AuthenticatorOptions {
  signer: TokenSigner;
  adminToken: AdminTokenSource;
  /** Where members and token records are read from (and kept between requests). */
  access: DataAccess;
}

/**
 * Turns an `Authorization` header into a Principal. Every failure (missing, malformed, expired,
 * badly signed, revoked, unknown member) raises the same UnauthenticatedError, so a caller learns
 * nothing about why. A member token authenticates while its record (src/models/token.model.ts)
 * exists, names its member and is not revoked, and while the member exists; role and team come
 * from the member document. Both are read through the data-access layer's caches, checked against
 * the `tokens` and `members` versions of each request: a revocation, a role change or a deletion
 * counts from the next request on, on every instance. Database failures are not authentication
 * failures and propagate.
 */
export class Authenticator {
  private readonly fixedAdminToken: ((token: string) => boolean) | null;

  constructor(private readonly options: AuthenticatorOptions) {
    const source = options.adminToken;
    this.fixedAdminToken =
      source.kind === 'fixed' && source.value !== undefined ? secretMatcher(source.value) : null;
  }

  async authenticate(authorization: string | undefined, data: RequestData): Promise<Principal> {
    const token = bearerToken(authorization);
    if (token === null) throw new UnauthenticatedError();
    // The admin identity comes from the secret itself, never from a subject a token carries.
    if (await this.isAdminToken(token, data)) {
      return { subject: ADMIN_TOKEN_SUBJECT, role: Role.ADMIN, memberId: null, teamId: null };
    }
    const claims = await this.claimsOf(token);
    // A token without an id has no record to check, so it could never be revoked: refused.
    if (claims === null || claims.tokenId === null) throw new UnauthenticatedError();
    const { memberId, tokenId } = claims;
    const [record, member] = await Promise.all([
      this.options.access.tokensById.get(data, tokenId, () =>
        TokenModel.findById(tokenId).lean<TokenDoc>().exec(),
      ),
      this.options.access.membersById.get(data, memberId, () =>
        MemberModel.findById(memberId).lean<MemberDoc>().exec(),
      ),
    ]);
    if (!record || record.memberId !== memberId || record.revokedAt !== null)
      throw new UnauthenticatedError();
    if (!member) throw new UnauthenticatedError();
    return { subject: memberId, role: member.role, memberId, teamId: member.teamId };
  }

  private async isAdminToken(token: string, data: RequestData): Promise<boolean> {
    const source = this.options.adminToken;
    if (source.kind === 'fixed')
      return this.fixedAdminToken !== null && this.fixedAdminToken(token);
    const matches = await this.options.access.storedAdminToken.get(
      data,
      'admin-token',
      async () => {
        const value = await source.read();
        return value === null ? null : secretMatcher(value);
      },
    );
    return matches !== null && matches(token);
  }

  /** The claims of a signed token, or null when it does not verify (the signer refuses the admin subject). */
  private async claimsOf(token: string): Promise<VerifiedClaims | null> {
    try {
      return await this.options.signer.verify(token);
    } catch (error) {
      if (error instanceof InvalidTokenError) return null;
      throw error;
    }
  }
}
