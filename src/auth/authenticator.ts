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

function memberPrincipal(memberId: string, member: Pick<MemberDoc, 'role' | 'teamId'>): Principal {
  return { subject: memberId, role: member.role, memberId, teamId: member.teamId };
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
 * are written): a role change or a deletion takes effect at once. Database failures are not authentication failures and propagate.
 */
export class Authenticator {
  /**
   * The last header parsed and its token. Why: a request's header is parsed twice (who is calling,
   * then who may do what), and a client sends the same one request after request; handing back
   * the same token string also spares hashing it again for the verified-token lookup.
   */
  private lastHeader: string | undefined;

  private lastToken: string | null = null;

  private readonly matchesAdminToken: ((token: string) => boolean) | null;

  constructor(private readonly options: AuthenticatorOptions) {
    this.matchesAdminToken =
      options.adminToken === undefined ? null : secretMatcher(options.adminToken);
  }

  /** bearerToken, remembering the last header. */
  tokenOf(authorization: unknown): string | null {
    if (authorization !== this.lastHeader) {
      this.lastToken = bearerToken(authorization);
      this.lastHeader = typeof authorization === 'string' ? authorization : undefined;
    }
    return this.lastToken;
  }

  /**
   * Who a token names: `admin-token`, a member id, or null when it does not verify. Never throws
   * for a bad token (database and other failures propagate).
   *
   * A token this signer has verified before is a member token and is taken from memory without
   * the constant-time comparison with ADMIN_TOKEN (a sha256 each): a signed JWT of ours cannot
   * be the admin secret, and knowing that a token was seen before tells its sender nothing.
   */
  async subjectOf(token: string): Promise<string | null> {
    const remembered = this.rememberedSubject(token);
    if (remembered !== undefined) return remembered;
    if (this.isAdminSecret(token)) return ADMIN_TOKEN_SUBJECT;
    return this.memberIdOf(token);
  }

  /** Whether the token is the bootstrap admin secret: the only way to the admin-token identity. */
  private isAdminSecret(token: string): boolean {
    return this.matchesAdminToken !== null && this.matchesAdminToken(token);
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

  /** subjectOf without waiting, for a member token verified before; undefined when that takes more. */
  rememberedSubject(token: string): string | undefined {
    return this.options.signer.remembered(token)?.memberId;
  }

  async authenticate(authorization: string | undefined, data: RequestData): Promise<Principal> {
    const token = this.tokenOf(authorization);
    if (token === null) throw new UnauthenticatedError();
    const remembered = this.rememberedSubject(token);
    // The admin identity comes from the secret itself, never from a subject a token carries.
    if (remembered === undefined && this.isAdminSecret(token))
      return { subject: ADMIN_TOKEN_SUBJECT, role: Role.ADMIN, memberId: null, teamId: null };
    const memberId = remembered ?? (await this.memberIdOf(token));
    if (memberId === null) throw new UnauthenticatedError();
    // Kept while the members' version stands (DataAccess): a role change or a deletion
    // still counts from the next request on.
    const member = await this.options.access.membersById.get(data, memberId, () =>
      MemberModel.findById(memberId).lean<MemberDoc>().exec(),
    );
    if (!member) throw new UnauthenticatedError();
    return memberPrincipal(memberId, member);
  }

  /** Whether `authorization` carries a member token verified before. */
  knowsCaller(authorization: string | undefined): boolean {
    const token = this.tokenOf(authorization);
    return token !== null && this.rememberedSubject(token) !== undefined;
  }

  /**
   * authenticate without waiting, when everything it needs is in memory (a member token verified
   * before, its member cached); undefined when it takes more, or fails: call authenticate then.
   */
  authenticateNow(authorization: string | undefined, data: RequestData): Principal | undefined {
    const token = this.tokenOf(authorization);
    const memberId = token === null ? undefined : this.rememberedSubject(token);
    if (memberId === undefined) return undefined;
    const member = this.options.access.membersById.peek(data, memberId);
    return member ? memberPrincipal(memberId, member) : undefined;
  }
}
