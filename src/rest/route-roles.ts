import type { Principal } from '../auth/principal';
import { Role, ROLES } from '../auth/role';
import { ForbiddenError } from '../errors';
import { requireAdmin } from '../services/member-access';

/**
 * Who may call a REST route at all: a coarse gate, checked as soon as the caller is known and
 * before the request's input is read, so that a caller who may not use a route costs nothing
 * whatever they send. The services keep their own, finer rules (a manager's own team, a member's
 * own targets); the gate only turns away the roles the service would refuse whatever the input.
 */
export interface RouteRoles {
  /** The roles that may call the route. */
  readonly allowed: readonly Role[];
  /** Throws the 403 the route's service gives a caller of another role, with the same message. */
  readonly refuse: (principal: Principal) => void;
}

/** Reads and anything else every authenticated caller may call. */
export const EVERY_ROLE: RouteRoles = {
  allowed: ROLES,
  refuse: () => undefined,
};

/** Admin only, refused as the service's `requireAdmin(principal, action)` refuses it. */
export function adminOnly(action: string): RouteRoles {
  return { allowed: [Role.ADMIN], refuse: (principal) => requireAdmin(principal, action) };
}

/**
 * An admin, or a manager (the service decides which members a manager may touch); a member gets
 * a 403 with `memberMessage`, the service's text for a member.
 */
export function adminOrManager(memberMessage: string): RouteRoles {
  return onlyRoles([Role.ADMIN, Role.MANAGER], () => memberMessage);
}

/** Only `allowed`; any other caller gets a 403 with `message(principal)`, the service's text. */
export function onlyRoles(
  allowed: readonly Role[],
  message: (principal: Principal) => string,
): RouteRoles {
  return {
    allowed,
    refuse: (principal) => {
      throw new ForbiddenError(message(principal));
    },
  };
}
