import { Role } from '../../src/auth/role';
import { MemberModel } from '../../src/models/member.model';

/** Inserts a member straight into the store (test set-up, not the API under test). */
export async function insertMember(role: Role, teamId = 'team-a'): Promise<string> {
  const tag = Math.random().toString(36).slice(2, 10);
  const member = await MemberModel.create({
    firstname: 'Test',
    lastname: `${role}-${tag}`,
    email: `${role}-${tag}@example.com`,
    emailLower: `${role}-${tag}@example.com`,
    role,
    teamId,
  });
  return member._id;
}
