import type { Principal } from '../../src/auth/principal';
import { Role } from '../../src/auth/role';
import { ForbiddenError } from '../../src/errors';
import {
  assertCanAttachTo,
  assertCanCreateMember,
  assertCanManageMember,
  assertCanReadTargets,
  assertCanSetTargets,
  requireAdmin,
} from '../../src/services/member-access';

const admin: Principal = { subject: 'admin-token', role: Role.ADMIN, memberId: null, teamId: null };
const manager: Principal = { subject: 'mgr', role: Role.MANAGER, memberId: 'mgr', teamId: 'red' };
const member: Principal = { subject: 'mem', role: Role.MEMBER, memberId: 'mem', teamId: 'red' };

const redMember = { _id: 'x', role: Role.MEMBER, teamId: 'red' };
const blueMember = { _id: 'y', role: Role.MEMBER, teamId: 'blue' };
const redAdmin = { _id: 'z', role: Role.ADMIN, teamId: 'red' };

describe('role table of the members half', () => {
  it('lets only admins do admin things', () => {
    expect(() => requireAdmin(admin, 'create teams')).not.toThrow();
    expect(() => requireAdmin(manager, 'create teams')).toThrow(
      new ForbiddenError('Only an admin may create teams; the caller is a manager'),
    );
    expect(() => requireAdmin(member, 'create teams')).toThrow(ForbiddenError);
  });

  it('lets a manager create members and managers of their own team, never admins or other teams', () => {
    expect(() => assertCanCreateMember(admin, Role.ADMIN, 'blue')).not.toThrow();
    expect(() => assertCanCreateMember(manager, Role.MEMBER, 'red')).not.toThrow();
    expect(() => assertCanCreateMember(manager, Role.MANAGER, 'red')).not.toThrow();
    expect(() => assertCanCreateMember(manager, Role.ADMIN, 'red')).toThrow(
      /may not create an admin/,
    );
    expect(() => assertCanCreateMember(manager, Role.MEMBER, 'blue')).toThrow(
      /own team red, not of team blue/,
    );
    expect(() => assertCanCreateMember(member, Role.MEMBER, 'red')).toThrow(
      /A member may not create members/,
    );
  });

  it('lets a manager attach or delete only non-admin members of their own team, into their own team', () => {
    expect(() => assertCanManageMember(manager, redMember, 'delete')).not.toThrow();
    expect(() => assertCanManageMember(manager, blueMember, 'delete')).toThrow(
      /member y is in team blue/,
    );
    expect(() => assertCanManageMember(manager, redAdmin, 'attach')).toThrow(
      /may not attach an admin/,
    );
    expect(() => assertCanManageMember(member, redMember, 'delete')).toThrow(
      /A member may not delete members/,
    );
    expect(() => assertCanManageMember(admin, redAdmin, 'delete')).not.toThrow();
    expect(() => assertCanAttachTo(manager, 'red')).not.toThrow();
    expect(() => assertCanAttachTo(manager, 'blue')).toThrow(/not to team blue/);
    expect(() => assertCanAttachTo(admin, 'blue')).not.toThrow();
  });

  it("lets admins and own-team managers set targets, nobody else, and never a manager their own or an admin's", () => {
    expect(() => assertCanSetTargets(admin, blueMember)).not.toThrow();
    expect(() => assertCanSetTargets(admin, redAdmin)).not.toThrow();
    expect(() => assertCanSetTargets(manager, redMember)).not.toThrow();
    expect(() => assertCanSetTargets(manager, blueMember)).toThrow(ForbiddenError);
    expect(() => assertCanSetTargets(manager, redAdmin)).toThrow(/may not set an admin's targets/);
    expect(() =>
      assertCanSetTargets(manager, { _id: 'mgr', role: Role.MANAGER, teamId: 'red' }),
    ).toThrow(/may not set their own targets/);
    expect(() =>
      assertCanSetTargets(member, { _id: 'mem', role: Role.MEMBER, teamId: 'red' }),
    ).toThrow(/A member may not set targets/);
  });

  it('lets members read only their own targets, managers their team, admins all', () => {
    expect(() => assertCanReadTargets(admin, blueMember)).not.toThrow();
    expect(() => assertCanReadTargets(manager, redMember)).not.toThrow();
    expect(() => assertCanReadTargets(manager, blueMember)).toThrow(
      /only read targets of their own team red/,
    );
    expect(() => assertCanReadTargets(member, { _id: 'mem', teamId: 'red' })).not.toThrow();
    expect(() => assertCanReadTargets(member, redMember)).toThrow(
      /may only read their own targets, not those of member x/,
    );
  });
});
