import type { Model } from 'mongoose';
import { ConflictError } from '../errors';

/**
 * Inserts `docs` (unordered) and answers the ids of those inserted. A document refused because
 * its `key` was taken meanwhile is fine when `useExisting(key)` finds the visible holder (an
 * admin created it after the import looked): the import uses that one instead. A holder nobody
 * can see belongs to another import that has not committed: a 409 with `conflict(key)`.
 */
export async function createMissing<D extends { _id: string }>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any model: only _id and the key field are read
  model: Model<any>,
  docs: D[],
  key: keyof D & string,
  useExisting: (key: string) => Promise<boolean>,
  conflict: (key: string) => string,
): Promise<string[]> {
  if (docs.length === 0) return [];
  try {
    // Unordered so every free key is inserted; a document that fails validation still fails the whole.
    await model.insertMany(docs, { ordered: false, throwOnValidationError: true });
    return docs.map((d) => d._id);
  } catch (error) {
    const refused = refusedDuplicates(error);
    if (refused === null) throw error;
    for (const index of refused) {
      const value = String(docs[index][key]);
      if (!(await useExisting(value))) throw new ConflictError(conflict(value));
    }
    return docs.filter((_, i) => !refused.has(i)).map((d) => d._id);
  }
}

/** The indexes of the documents a bulk insert refused as duplicates; null when anything else failed. */
function refusedDuplicates(error: unknown): Set<number> | null {
  const writeErrors = (error as { writeErrors?: Array<{ index: number; code: number }> })
    .writeErrors;
  if (!Array.isArray(writeErrors) || writeErrors.length === 0) return null;
  if (writeErrors.some((w) => w.code !== 11000)) return null;
  return new Set(writeErrors.map((w) => w.index));
}
