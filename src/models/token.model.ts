import { ObjectId } from 'bson';
import { Schema, model } from 'mongoose';
import { versionedScope } from '../data/versions-document';

/**
 * The record of one issued member token (never the token itself): what lets a token be listed and
 * revoked one by one. A signed token authenticates only while its record exists, names the same
 * member and is not revoked (src/auth/authenticator.ts).
 */
export interface TokenDoc {
  /** The token's `jti`: 24 hex digits, in the order tokens were issued (to the second). */
  _id: string;
  /** The member the token acts as. */
  memberId: string;
  /** Who issued it: an admin member's id, or `admin-token` for the bootstrap secret. */
  issuedBy: string;
  /** The token's `iat` and `exp`. */
  issuedAt: Date;
  expiresAt: Date;
  /** Set once, when the token is revoked (by hand, or with its member or issuer). */
  revokedAt: Date | null;
}

/** Records are removed this long after their token expired (it no longer authenticates anyway). */
export const TOKEN_RECORD_GRACE_SECONDS = 24 * 3600;

/** A new token id: an ObjectId's hex, unique and ordered by issue time across instances. */
export function newTokenId(): string {
  return new ObjectId().toHexString();
}

const tokenSchema = new Schema<TokenDoc>(
  {
    _id: { type: String, required: true },
    memberId: { type: String, required: true },
    issuedBy: { type: String, required: true },
    issuedAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
    revokedAt: { type: Date, default: null },
  },
  { collection: 'tokens', versionKey: false },
);

// A member's tokens in issue order (listing), and the tokens a member issued (their deletion
// revokes them).
tokenSchema.index({ memberId: 1, _id: 1 });
tokenSchema.index({ issuedBy: 1 });
// Expired tokens' records go (MongoDB's TTL monitor, or the embedded store's): the collection,
// which each instance's content check reads whole, holds at most 30 days of issued tokens.
tokenSchema.index({ expiresAt: 1 }, { expireAfterSeconds: TOKEN_RECORD_GRACE_SECONDS });

// Every write bumps the 'tokens' version counter: authentication's cached records are checked
// against it, so a revocation counts from the next request on, on every instance.
tokenSchema.plugin(versionedScope('tokens'));

export const TokenModel = model<TokenDoc>('Token', tokenSchema);
