import { randomUUID } from 'node:crypto';
import { Schema, model } from 'mongoose';
import { hidePendingImports } from '../import/pending-import-visibility';
import { versionedScope } from '../data/versions-document';

/** A stored team. */
export interface TeamDoc {
  /** The contract's `team_id`: chosen by the client or a generated UUID. */
  _id: string;
  name: string;
  /** Set while the import that created the team has not committed (see MemberDoc.pendingImportId). */
  pendingImportId?: string;
  createdAt: Date;
}

const teamSchema = new Schema<TeamDoc>(
  {
    _id: { type: String, default: () => randomUUID() },
    name: { type: String, required: true },
  },
  { collection: 'teams', timestamps: { createdAt: true, updatedAt: false }, versionKey: false },
);

teamSchema.plugin(hidePendingImports);

// Every write bumps the 'teams' version counter, which caches of it are checked against.
teamSchema.plugin(versionedScope('teams'));

export const TeamModel = model<TeamDoc>('Team', teamSchema);
