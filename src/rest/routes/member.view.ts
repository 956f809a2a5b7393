import type { MemberDoc } from '../../models/member.model';

/** `<member>` of the contract: `{ member_id, lastname, firstname, email, role, memberOf: { team_id } }`. */
export function toRestMember(doc: MemberDoc) {
  return {
    member_id: doc._id,
    lastname: doc.lastname,
    firstname: doc.firstname,
    email: doc.email,
    role: doc.role,
    memberOf: { team_id: doc.teamId },
  };
}

/** JSON Schema of `<member>`, for route response schemas. */
export const MEMBER_SCHEMA = {
  type: 'object',
  required: ['member_id', 'lastname', 'firstname', 'email', 'role', 'memberOf'],
  properties: {
    member_id: { type: 'string' },
    lastname: { type: 'string' },
    firstname: { type: 'string' },
    email: { type: 'string' },
    role: { type: 'string', enum: ['admin', 'manager', 'member'] },
    memberOf: {
      type: 'object',
      required: ['team_id'],
      properties: { team_id: { type: 'string' } },
    },
  },
} as const;
