import { randomUUID } from 'node:crypto';
import { Schema, model } from 'mongoose';
import { ROLES, Role } from '../auth/role';
import { hidePendingImports } from '../import/pending-import-visibility';
import { versionedScope } from '../data/versions-document';
import { carriesEvents } from '../events/outbox/carries-events.plugin';

/** A stored member, as `lean()` reads return it. */
export interface MemberDoc {
  /** UUID v4; `member_id` on REST, `id` on GraphQL. */
  _id: string;
  firstname: string;
  lastname: string;
  /** As given, for display. */
  email: string;
  /** Lower-cased e-mail: carries the unique index, so uniqueness is case-insensitive. */
  emailLower: string;
  role: Role;
  teamId: string;
  /**
   * Set while the import that created the member has not committed: no query sees the member
   * then unless it opts in (hidePendingImports). Absent on every member a caller can read.
   */
  pendingImportId?: string;
  createdAt: Date;
  updatedAt: Date;
}

// Uniqueness rides on `emailLower` rather than a collation index, which the embedded store need
// not support.
const memberSchema = new Schema<MemberDoc>(
  {
    _id: { type: String, default: () => randomUUID() },
    firstname: { type: String, required: true },
    lastname: { type: String, required: true },
    email: { type: String, required: true },
    emailLower: { type: String, required: true },
    role: { type: String, enum: ROLES, required: true },
    teamId: { type: String, required: true },
  },
  { collection: 'members', timestamps: true, versionKey: false },
);

memberSchema.plugin(hidePendingImports);
memberSchema.index({ emailLower: 1 }, { unique: true });
// Listing by team (and the team → members loader) reads in `_id` order inside a team.
memberSchema.index({ teamId: 1, _id: 1 });

// Every write bumps the 'members' version counter, which caches of it are checked against.
memberSchema.plugin(versionedScope('members'));
// Its writes carry the events they cause (src/events/outbox).
memberSchema.plugin(carriesEvents());

export const MemberModel = model<MemberDoc>('Member', memberSchema);
