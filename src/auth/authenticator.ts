import { UnauthenticatedError } from '../errors';
import { readCaches } from '../cache/read-caches';
import { MemberModel } from '../models/member.model';
import { constantTimeEquals } from './constant-time';
import { InvalidTokenError, type TokenSigner } from './jwt';
import type { Principal } from './principal';
import { Role } from './role';

/** Subject of the bootstrap ADMIN_TOKEN principal. */
export const ADMIN_TOKEN_SUBJECT = 'admin-token';

// Any visible characters: ADMIN_TOKEN may be chosen freely (JWTs are base64url and dots).
const BEARER = /^Bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i;

export interface AuthenticatorOptions {
  signer: TokenSigner;
  /** The bootstrap admin secret; undefined disables it. */
  adminToken: string | undefined;
}

/**
 * Turns an `Authorization` header into a Principal. Every failure (missing, malformed, expired,
 * badly signed, unknown member) raises the same UnauthenticatedError, so a caller learns nothing
 * about why. Role and team come from the member document at each request (cached until members
 * are written): a role change or a deletion takes effect at once. Database failures are not authentication failures and propagate.
 */
export class Authenticator {
  constructor(private readonly options: AuthenticatorOptions) {}

  private async verified(token: string): Promise<string> {
    try {
      return (await this.options.signer.verify(token)).memberId;
    } catch (error) {
      if (error instanceof InvalidTokenError) throw new UnauthenticatedError();
      throw error;
    }
  }

  async authenticate(authorization: string | undefined): Promise<Principal> {
    const match = typeof authorization === 'string' ? BEARER.exec(authorization) : null;
    if (!match) throw new UnauthenticatedError();
    const token = match[1];
    const { adminToken } = this.options;
    if (adminToken !== undefined && constantTimeEquals(token, adminToken)) {
      return { subject: ADMIN_TOKEN_SUBJECT, role: Role.ADMIN, memberId: null, teamId: null };
    }
    const memberId = await this.verified(token);
    // Cached until the members collection is written (src/cache): a role change or a deletion
    // still counts from the next request on.
    const member = await readCaches.membersById.get(memberId, () => MemberModel.findById(memberId).lean());
    if (!member) throw new UnauthenticatedError();
    return { subject: memberId, role: member.role, memberId, teamId: member.teamId };
  }
}
