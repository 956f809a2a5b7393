import type { Role } from './role';

/**
 * Who is calling, established once per request from the bearer token. Services take it as their
 * first argument and enforce the role table themselves, so REST and GraphQL cannot differ.
 */
export interface Principal {
  /** Token subject: a member id, or `admin-token` for the bootstrap ADMIN_TOKEN. */
  subject: string;
  role: Role;
  /** The member behind the token; null for the bootstrap admin secret. */
  memberId: string | null;
  /** The member's team when the token was checked; managers act within it. */
  teamId: string | null;
}
