import type { Outcome } from '../models/opportunity.model';
import type { NormalisedDeal, NormalisedDefinition } from './normalised.types';

/** A deal as it stood at one moment: where it was and whether it was open, won or lost. */
export interface DealState {
  deal: NormalisedDeal;
  stageId: string;
  outcome: Outcome;
}

/** The current state: as HubSpot reports it now. */
export function currentState(deal: NormalisedDeal): DealState {
  return { deal, stageId: deal.stageId, outcome: deal.outcome };
}

/**
 * The state of `deal` at instant `at`, reconstructed from its dates, or null when it did not exist
 * yet (or its creation date is unknown). Rules (docs/importing.md, "Backfill"):
 * - it exists if created ≤ at;
 * - a deal now won/lost was in its final closed stage if it closed ≤ at (a closed deal whose close
 *   date is unknown counts as closed since creation);
 * - otherwise it was open in the open stage it entered latest ≤ at per hs_date_entered_*, else in
 *   the first open stage by display order; a pipeline without open stages cannot hold it.
 */
export function stateAt(
  deal: NormalisedDeal,
  definition: NormalisedDefinition,
  at: Date,
): DealState | null {
  const time = at.getTime();
  if (deal.createdAt === null || deal.createdAt.getTime() > time) return null;
  if (deal.outcome !== 'open' && (deal.closedAt === null || deal.closedAt.getTime() <= time)) {
    return currentState(deal);
  }
  let stageId: string | null = null;
  let latest = Number.NEGATIVE_INFINITY;
  for (const stage of definition.stages) {
    if (stage.isClosed) continue;
    const entered = deal.stageEnteredAt[stage.id];
    if (entered !== undefined && entered.getTime() <= time && entered.getTime() >= latest) {
      latest = entered.getTime();
      stageId = stage.id;
    }
  }
  stageId ??= definition.stages.find((stage) => !stage.isClosed)?.id ?? null;
  return stageId === null ? null : { deal, stageId, outcome: 'open' };
}
