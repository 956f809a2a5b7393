import { calculateObjectSize, type Document } from 'bson';
import { StoreError } from '../errors';
import { MAX_BSON_OBJECT_SIZE } from '../wire/op-codes';

/**
 * mongod's limit on stored documents (BSONObjMaxUserSize, the `maxBsonObjectSize` hello
 * advertises). A request may carry a bigger one (a message holds up to 48 MB), so each write
 * checks what it would store, with the error mongod gives at that point.
 */
const checks = {
  insert: (size: number) =>
    new StoreError(
      'BadValue',
      `object to insert too large. size in bytes: ${size}, max size: ${MAX_BSON_OBJECT_SIZE}`,
    ),
  update: () =>
    new StoreError(
      'Location17419',
      `Resulting document after update is larger than ${MAX_BSON_OBJECT_SIZE}`,
    ),
  upsert: () =>
    new StoreError('Location17420', `Document to upsert is larger than ${MAX_BSON_OBJECT_SIZE}`),
} as const;

export function checkDocumentSize(doc: Document, write: keyof typeof checks): void {
  const size = calculateObjectSize(doc);
  if (size > MAX_BSON_OBJECT_SIZE) throw checks[write](size);
}
