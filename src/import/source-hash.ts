import { createHash, type Hash } from 'node:crypto';
import type { PeriodUnit } from '../domain/period';
import type {
  NormalisedCrmData,
  NormalisedDeal,
  NormalisedDefinition,
  NormalisedOwner,
} from './normalised.types';
import type { SkippedItem } from './skipped';
import type { StageCategoryMapping } from '../domain/forecast-category';

/**
 * The idempotence key of an import: sha256 over the normalised data (canonical order, so page
 * order and HubSpot's key order do not matter), the explicit snapshot_at and the backfill period
 * unit (null without backfill: a backfill under another period unit is another import).
 * Without snapshot_at, re-importing unchanged data therefore answers the existing snapshot.
 * An incremental import also hashes the snapshot it applies to (`baseSnapshotId`) and the deals
 * it removes: the same changes on another snapshot make another picture; and every import the
 * forecast category mappings in force, which decide the categories the snapshot stores. Deals are
 * given one by one in id order, as the import reads them.
 */
export class SourceHasher {
  private readonly hash: Hash = createHash('sha256');
  private readonly removedIds: Hash | null;

  constructor(
    head: {
      snapshotAt: Date | null;
      backfillUnit: PeriodUnit | null;
      baseSnapshotId: string | null;
      /** The stage → forecast category mappings in force (none: nothing is hashed for them). */
      forecastMappings?: readonly StageCategoryMapping[];
    },
    definitions: NormalisedDefinition[],
    owners: NormalisedOwner[],
  ) {
    const snapshotAt = head.snapshotAt?.toISOString() ?? null;
    // v: 3, deals as lines of fields (deal()): data imported under an earlier layout gets a new
    // key once, and is imported again, changing nothing but the snapshot's record.
    this.hash.update(
      JSON.stringify({
        v: 3,
        snapshotAt,
        backfillUnit: head.backfillUnit,
        baseSnapshotId: head.baseSnapshotId,
      }),
    );
    // None set leaves the key as it was before mappings existed.
    const mappings = head.forecastMappings ?? [];
    if (mappings.length > 0) this.hash.update(JSON.stringify({ forecastMappings: mappings }));
    this.removedIds = head.baseSnapshotId === null ? null : createHash('sha256');
    this.hash.update(JSON.stringify(definitions));
    this.hash.update(JSON.stringify(owners));
  }

  /**
   * A deal that counts, in id order: its fields as one line (strings JSON-quoted, so no field can
   * run into the next; dates as milliseconds), its stage entries sorted by stage. A line per deal
   * rather than its JSON: at a million deals, serialising each Date as text was most of the hash.
   */
  deal(deal: NormalisedDeal): void {
    let line = `${JSON.stringify(deal.dealId)},${JSON.stringify(deal.name)},${JSON.stringify(deal.definitionId)},${JSON.stringify(deal.stageId)},${deal.amount},${deal.ownerId === null ? 'null' : JSON.stringify(deal.ownerId)},${deal.createdAt?.getTime() ?? 'null'},${deal.closedAt?.getTime() ?? 'null'},${deal.outcome}`;
    for (const stage of Object.keys(deal.stageEnteredAt).sort())
      line += `,${JSON.stringify(stage)}:${deal.stageEnteredAt[stage].getTime()}`;
    // Only when the CRM gives one, so a deal without keeps the line it had before categories.
    if (deal.crmForecastCategory !== undefined) line += `,category:${deal.crmForecastCategory}`;
    this.hash.update(`${line}\n`);
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
  forecastMappings: readonly StageCategoryMapping[] = [],
): string {
  const hasher = new SourceHasher(
    { snapshotAt, backfillUnit, baseSnapshotId, forecastMappings },
    data.definitions,
    data.owners,
  );
  for (const deal of data.deals) hasher.deal(deal);
  for (const id of data.removedDealIds) hasher.removed(id);
  return hasher.digest(data.skipped);
}
