import { MemberModel } from '../models/member.model';
import { TeamModel } from '../models/team.model';

/**
 * Makes the members and teams an import created visible, once its snapshots are committed.
 * Teams first: a member a caller can see never points at a team they cannot. Safe to repeat.
 */
export async function publishImport(importId: string): Promise<void> {
  await TeamModel.updateMany({ pendingImportId: importId }, { $unset: { pendingImportId: 1 } });
  await MemberModel.updateMany({ pendingImportId: importId }, { $unset: { pendingImportId: 1 } });
}
