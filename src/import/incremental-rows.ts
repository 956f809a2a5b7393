import type { NormalisedCrmData } from './normalised.types';
import type { SkippedItem } from './skipped';
import type { OpportunityRow } from './snapshot-writer';

/** What an incremental import does to the latest snapshot's deals, decided before anything is written. */
export interface IncrementalRows {
  /** The latest snapshot's deals that stand as they were: neither carried nor removed. */
  kept: OpportunityRow[];
  /** Kept deals that leave because the imported pipelines no longer have their stage, reported. */
  left: SkippedItem[];
  /** How many deals the latest snapshot held. */
  base: number;
  /** How many of them the new snapshot no longer holds (archived, unusable, or their stage gone). */
  removed: number;
}

/**
 * The latest snapshot's opportunities an incremental import keeps: every deal it does not carry
 * and does not remove. With new `pipelines`, a kept deal whose pipeline or stage is gone leaves
 * (reported), as a full import would skip it, and its outcome follows its stage's new metadata.
 */
export function incrementalRows(
  base: OpportunityRow[],
  data: NormalisedCrmData,
  definitionsKept: boolean,
): IncrementalRows {
  const carried = new Set(data.deals.map((d) => d.dealId));
  const removed = new Set(data.removedDealIds);
  const definitions = new Map(data.definitions.map((d) => [d.definitionId, d]));
  const kept: OpportunityRow[] = [];
  const left: SkippedItem[] = [];
  let carriedFromBase = 0;
  for (const row of base) {
    if (carried.has(row.dealId)) carriedFromBase += 1;
    if (carried.has(row.dealId) || removed.has(row.dealId)) continue;
    if (definitionsKept) {
      kept.push(row);
      continue;
    }
    const stage = definitions.get(row.definitionId)?.stages.find((s) => s.id === row.stageId);
    if (!stage) {
      left.push({
        id: row.dealId,
        reason: `deal kept from the latest snapshot is in stage "${row.stageId}" of pipeline "${row.definitionId}", which the imported pipelines no longer have; left out of every metric`,
      });
      continue;
    }
    kept.push({
      ...row,
      outcome: stage.isClosed ? (stage.probability === 1 ? 'won' : 'lost') : 'open',
    });
  }
  return { kept, left, base: base.length, removed: base.length - kept.length - carriedFromBase };
}

/** Two lists of rows sorted by deal id, merged into one sorted by deal id (the ids are disjoint). */
export function mergeByDealId(a: OpportunityRow[], b: OpportunityRow[]): OpportunityRow[] {
  const merged: OpportunityRow[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i].dealId < b[j].dealId)) merged.push(a[i++]);
    else merged.push(b[j++]);
  }
  return merged;
}
