import { TokenModel } from '../models/token.model';

/**
 * Revokes every live token of `memberId` and every token that member issued, as its deletion
 * does (member.service.ts). The issued ones go too: an admin could otherwise mint tokens for
 * another member, or for a member they create, that outlive their own removal. Answers how many
 * tokens were revoked. Kept apart from token.service.ts, which reads members through
 * member.service.ts.
 */
export async function revokeTokensOf(memberId: string, now = new Date()): Promise<number> {
  const own = await TokenModel.updateMany(
    { memberId, revokedAt: null },
    { $set: { revokedAt: now } },
  ).exec();
  const issued = await TokenModel.updateMany(
    { issuedBy: memberId, revokedAt: null },
    { $set: { revokedAt: now } },
  ).exec();
  return own.modifiedCount + issued.modifiedCount;
}
