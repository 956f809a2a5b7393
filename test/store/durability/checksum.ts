import { createHash } from 'node:crypto';
import { EJSON, type Document } from 'bson';

/**
 * Checksum of a document's content without its `sum` field, over canonical Extended JSON (which
 * keeps BSON types: an Int32 and a Double of the same value differ, as do a Date and a number).
 */
export function contentChecksum(doc: Document): string {
  const { sum: _sum, ...content } = doc;
  return createHash('sha256')
    .update(EJSON.stringify(content, { relaxed: false }))
    .digest('hex');
}
