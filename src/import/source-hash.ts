import { createHash, type Hash } from 'node:crypto';
import type { PeriodUnit } from '../domain/period';
import type {
  NormalisedCrmData,
  NormalisedDeal,
  NormalisedDefinition,
  NormalisedOwner,
} from './normalised.types';
import type { SkippedItem } from './skipped';

/**
 * The idempotence key of an import: sha256 over the normalised data (canonical order, so page
 * order and HubSpot's key order do not matter), the explicit snapshot_at and the backfill period
 * unit (null without backfill: a backfill under another period unit is another import).
 * Without snapshot_at, re-importing unchanged data therefore answers the existing snapshot.
 * An incremental import also hashes the snapshot it applies to (`baseSnapshotId`) and the deals
 * it removes: the same changes on another snapshot make another picture. Deals are given one by
 * one in id order, as the import reads them.
 */
export class SourceHasher {
  private readonly hash: Hash = createHash('sha256');
  private readonly removedIds: Hash | null;

  constructor(
    head: {
      snapshotAt: Date | null;
      backfillUnit: PeriodUnit | null;
      baseSnapshotId: string | null;
    },
    definitions: NormalisedDefinition[],
    owners: NormalisedOwner[],
  ) {
    const snapshotAt = head.snapshotAt?.toISOString() ?? null;
    // A full import's key is unchanged (v: 1), so full imports made before still answer as reused.
    // An incremental one hashes its removed deals after the others (v: 2): they come with them.
    this.hash.update(
      JSON.stringify(
        head.baseSnapshotId === null
          ? { v: 1, snapshotAt, backfillUnit: head.backfillUnit }
          : {
              v: 2,
              snapshotAt,
              backfillUnit: head.backfillUnit,
              baseSnapshotId: head.baseSnapshotId,
            },
      ),
    );
    this.removedIds = head.baseSnapshotId === null ? null : createHash('sha256');
    this.hash.update(JSON.stringify(definitions));
    this.hash.update(JSON.stringify(owners));
  }

  /** A deal that counts, in id order. */
  deal(deal: NormalisedDeal): void {
    const entered = Object.keys(deal.stageEnteredAt)
      .sort()
      .map((k) => [k, deal.stageEnteredAt[k].toISOString()]);
    this.hash.update(JSON.stringify([deal, entered]));
  }

  /** A deal an incremental import removes, in id order. */
  removed(dealId: string): void {
    this.removedIds?.update(`${JSON.stringify(dealId)},`);
  }

  /** The key, once every deal was given; `skipped` in any order (only their content counts). */
  digest(skipped: readonly SkippedItem[]): string {
    const items = skipped.map((s) => `${s.id}\u0000${s.reason}`).sort();
    this.hash.update(JSON.stringify(items));
    if (this.removedIds) this.hash.update(this.removedIds.digest('hex'));
    return this.hash.digest('hex');
  }
}

/** The key of an import held in memory (SourceHasher over its deals in order). */
export function sourceHashOf(
  data: NormalisedCrmData,
  snapshotAt: Date | null,
  backfillUnit: PeriodUnit | null,
  baseSnapshotId: string | null = null,
): string {
  const hasher = new SourceHasher(
    { snapshotAt, backfillUnit, baseSnapshotId },
    data.definitions,
    data.owners,
  );
  for (const deal of data.deals) hasher.deal(deal);
  for (const id of data.removedDealIds) hasher.removed(id);
  return hasher.digest(data.skipped);
}
