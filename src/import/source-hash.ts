import { createHash } from 'node:crypto';
import type { PeriodUnit } from '../domain/period';
import type { NormalisedCrmData } from './normalised.types';
import type { StageCategoryMapping } from '../domain/forecast-category';

/**
 * The idempotence key of an import: sha256 over the normalised data (canonical order, so page
 * order and HubSpot's key order do not matter), the explicit snapshot_at and the backfill period
 * unit (null without backfill: a backfill under another period unit is another import).
 * Without snapshot_at, re-importing unchanged data therefore answers the existing snapshot.
 * An incremental import also hashes the snapshot it applies to (`baseSnapshotId`): the same
 * changes on another snapshot make another picture; and the forecast category mappings in force,
 * which decide the categories the snapshot stores.
 */
export function sourceHashOf(
  data: NormalisedCrmData,
  snapshotAt: Date | null,
  backfillUnit: PeriodUnit | null,
  baseSnapshotId: string | null = null,
  forecastMappings: readonly StageCategoryMapping[] = [],
): string {
  const hash = createHash('sha256');
  // The key of a full import is unchanged (v: 1), so imports made before still answer as reused.
  const head =
    baseSnapshotId === null
      ? { v: 1, snapshotAt: snapshotAt?.toISOString() ?? null, backfillUnit }
      : {
          v: 1,
          snapshotAt: snapshotAt?.toISOString() ?? null,
          backfillUnit,
          baseSnapshotId,
          removed: data.removedDealIds,
        };
  hash.update(JSON.stringify(head));
  // The stage mappings decide the forecast categories stored; none set leaves earlier keys as they were.
  if (forecastMappings.length > 0) hash.update(JSON.stringify({ forecastMappings }));
  hash.update(JSON.stringify(data.definitions));
  hash.update(JSON.stringify(data.owners));
  // Deals one by one: 100k deals in one JSON.stringify would build a very large string.
  for (const deal of data.deals) {
    const entered = Object.keys(deal.stageEnteredAt)
      .sort()
      .map((k) => [k, deal.stageEnteredAt[k].toISOString()]);
    hash.update(JSON.stringify([deal, entered]));
  }
  // Skipped items come in input order; sorted, so only their content counts.
  const skipped = data.skipped.map((s) => `${s.id}\u0000${s.reason}`).sort();
  hash.update(JSON.stringify(skipped));
  return hash.digest('hex');
}
