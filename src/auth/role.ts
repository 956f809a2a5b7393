/** Roles of the contract's role table, most powerful first. */
export enum Role {
  ADMIN = 'admin',
  MANAGER = 'manager',
  MEMBER = 'member',
}

export const ROLES: readonly Role[] = [Role.ADMIN, Role.MANAGER, Role.MEMBER];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}
