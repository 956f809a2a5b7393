// trusted(): the operator here is ours, never client input (filters are sanitised globally).
import { trusted } from 'mongoose';
import { ConflictError } from '../errors';
import { ImportLeaseModel } from '../models/import-lease.model';
import { isDuplicateKeyError } from '../services/duplicate-key';

const LEASE_ID = 'import';

/** How long a lease holds without renewal; an import renews it after each snapshot it writes. */
export const IMPORT_LEASE_MS = 10 * 60_000;

/**
 * Takes the database's import lease for `holder`: opportunity versions are written as changes from
 * the latest state, so two imports must never write at once, whichever instance runs them. Taken
 * by another import and not expired: 409. Under the lease, any pending snapshot is from an import
 * that stopped (another holder would still hold it), so it may be discarded.
 */
export async function acquireImportLease(holder: string, now: Date = new Date()): Promise<void> {
  try {
    await ImportLeaseModel.updateOne(
      { _id: LEASE_ID, expiresAt: trusted({ $lte: now }) },
      { $set: { holder, startedAt: now, expiresAt: new Date(now.getTime() + IMPORT_LEASE_MS) } },
      { upsert: true },
    );
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
    const held = await ImportLeaseModel.findById(LEASE_ID, { startedAt: 1 }).lean<{
      startedAt?: Date;
    }>();
    throw importRunningError(held?.startedAt ?? null);
  }
}

/**
 * 409 for an import refused while another runs (on this instance or another): names when that
 * one started, and what a retry of the same data will get.
 */
export function importRunningError(startedAt: Date | null): ConflictError {
  const since = startedAt ? ` (started ${startedAt.toISOString()})` : '';
  return new ConflictError(
    `Another import${since} is running on this database: try again when it has finished; the same data sent again then answers the snapshot it made, without writing anything twice`,
  );
}

/** Extends the lease; throws when `holder` no longer holds it (it expired and another import took it). */
export async function renewImportLease(holder: string, now: Date = new Date()): Promise<void> {
  const renewed = await ImportLeaseModel.updateOne(
    { _id: LEASE_ID, holder },
    { $set: { expiresAt: new Date(now.getTime() + IMPORT_LEASE_MS) } },
  );
  if (renewed.matchedCount === 0)
    throw new Error(
      'The import lost its lease on the database (it ran longer than the lease without renewing it)',
    );
}

/** Gives the lease back, if `holder` still holds it. */
export async function releaseImportLease(holder: string): Promise<void> {
  await ImportLeaseModel.deleteOne({ _id: LEASE_ID, holder });
}

/** Start-up of a database only this process can open (embedded): a lease found was left by a process that stopped. */
export async function clearImportLease(): Promise<void> {
  await ImportLeaseModel.deleteMany({});
}
