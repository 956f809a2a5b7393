import { UnauthenticatedError } from '../errors';
import type { DataAccess } from '../data/data-access';
import type { RequestData } from '../data/request-data';
import { MemberModel, type MemberDoc } from '../models/member.model';
import { secretMatcher } from './constant-time';
import { InvalidTokenError, RESERVED_SUBJECT, type TokenSigner } from './jwt';
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

export interface AuthenticatorOptions {
  signer: TokenSigner;
  /** The bootstrap admin secret; undefined disables it. */
  adminToken: string | undefined;
  /** Where members are read from (and kept between requests). */
  access: DataAccess;
}

/**
 * Turns an `Authorization` header into a Principal. Every failure (missing, malformed, expired,
 * badly signed, unknown member) raises the same UnauthenticatedError, so a caller learns nothing
 * about why. Role and team come from the member document at each request (cached until members
 * are written): a role change or a deletion takes effect at once. Database failures are not
 * authentication failures and propagate.
 */
export class Authenticator {
  private readonly matchesAdminToken: ((token: string) => boolean) | null;

  constructor(private readonly options: AuthenticatorOptions) {
    this.matchesAdminToken =
      options.adminToken === undefined ? null : secretMatcher(options.adminToken);
  }

  async authenticate(authorization: string | undefined, data: RequestData): Promise<Principal> {
    const token = bearerToken(authorization);
    if (token === null) throw new UnauthenticatedError();
    // The admin identity comes from the secret itself, never from a subject a token carries.
    if (this.matchesAdminToken !== null && this.matchesAdminToken(token)) {
      return { subject: ADMIN_TOKEN_SUBJECT, role: Role.ADMIN, memberId: null, teamId: null };
    }
    const memberId = await this.memberIdOf(token);
    if (memberId === null) throw new UnauthenticatedError();
    // Kept while the members' version stands (DataAccess): a role change or a deletion
    // still counts from the next request on.
    const member = await this.options.access.membersById.get(data, memberId, () =>
      MemberModel.findById(memberId).lean<MemberDoc>().exec(),
    );
    if (!member) throw new UnauthenticatedError();
    return { subject: memberId, role: member.role, memberId, teamId: member.teamId };
  }

  /** The member a signed token names, or null when it does not verify (the signer refuses the admin subject). */
  private async memberIdOf(token: string): Promise<string | null> {
    try {
      return (await this.options.signer.verify(token)).memberId;
    } catch (error) {
      if (error instanceof InvalidTokenError) return null;
      throw error;
    }
  }
}
