import { createHash } from 'node:crypto';
import type { Connection } from 'mongoose';
import { SCOPES, type Scope } from './scopes';
import { bounded } from './versions-document';

/** The `comment` of the content check's reads, which tell them from requests' reads in the database's logs. */
export const CONTENT_CHECK_COMMENT = 'pipeline-gateway content check';

/**
 * A digest of each scope's collection as stored now: every document's BSON, in `_id` order.
 * Two reads give the same digest exactly when no document was inserted, changed or removed in
 * between, whoever wrote (the counters only move for writes made through the models).
 *
 * Each scope's collection is named after it. These are the small, mutable collections (one
 * settings document, the members, their teams and targets, snapshot records, owner links), so a
 * read costs time proportional to them, not to deals or facts.
 */
export async function readFingerprints(connection: Connection): Promise<Record<Scope, string>> {
  const digests = await Promise.all(
    SCOPES.map(async (scope) => {
      const hash = createHash('sha1');
      // raw: the documents as the database sent them, hashed without being decoded.
      const cursor = connection.collection(scope).find({}, { raw: true, sort: { _id: 1 }, comment: CONTENT_CHECK_COMMENT });
      for await (const document of cursor) hash.update(document as unknown as Uint8Array);
      return [scope, hash.digest('base64')] as const;
    }),
  );
  return Object.fromEntries(digests) as Record<Scope, string>;
}

/** `readFingerprints`, bounded like the version read. */
export function readFingerprintsBounded(connection: Connection): Promise<Record<Scope, string>> {
  return bounded(readFingerprints(connection), 'the content check');
}
