// Internal test helper: a HubSpot account for the sync tests (test/helpers/hubspot-server.ts
// serves it), the changes a second sync must pick up, and the metrics computed from it alone.
import { owners, PIPELINES } from '../crm/hubspot-dataset';
import type { HubSpotDataset, StoredDeal } from '../../src/fake-crm/hubspot-server';

export { TOKEN } from '../crm/hubspot-dataset';

const STAGES = ['appointmentscheduled', 'contractsent', 'closedwon', 'closedlost'];
const RENEWAL_STAGES = ['7654322', '7654323'];
const MINUTE = 60_000;

/** Stage probability and closedness, from the pipelines the server answers. */
function stageOf(pipelineId: string, stageId: string): { closed: boolean; probability: number } {
  const stage = PIPELINES.find((p) => p.id === pipelineId)!.stages.find((s) => s.id === stageId)!;
  return {
    closed: stage.metadata!.isClosed === 'true',
    probability: Number(stage.metadata!.probability),
  };
}

/**
 * `count` deals, all in EUR, spread over both pipelines and their stages; deal i last modified
 * at `modifiedFrom` + i × 10 minutes (so only the latest lies within the sync's overlap window),
 * closed ones closed an hour before `now` (inside the current period).
 */
export function syncDeals(
  count: number,
  now: number,
  modifiedFrom = now - 2 * 86_400_000,
): StoredDeal[] {
  return Array.from({ length: count }, (_, i) => {
    const id = String(30001 + i);
    const renewal = i % 4 === 3;
    const pipeline = renewal ? '7654321' : 'default';
    const stage = renewal ? RENEWAL_STAGES[i % 2]! : STAGES[i % STAGES.length]!;
    const modified = new Date(modifiedFrom + i * 10 * MINUTE).toISOString();
    const created = new Date(now - 40 * 86_400_000 + i * MINUTE).toISOString();
    const deal: StoredDeal = {
      id,
      properties: {
        dealname: `Deal ${id}`,
        amount: String(500 + 37 * i),
        pipeline,
        dealstage: stage,
        createdate: created,
        closedate: null,
        hubspot_owner_id: String(1001 + (i % 3)),
        deal_currency_code: 'EUR',
        hs_lastmodifieddate: modified,
        [`hs_date_entered_${stage}`]: created,
      },
      createdAt: created,
      updatedAt: modified,
    };
    setStage(deal, stage, now, modified);
    return deal;
  });
}

/** Moves a deal to `stage` (closing it an hour before `now` if the stage is closed), modified at `modified`. */
export function setStage(deal: StoredDeal, stage: string, now: number, modified: string): void {
  const { closed, probability } = stageOf(deal.properties.pipeline!, stage);
  deal.properties.dealstage = stage;
  deal.properties.closedate = closed
    ? new Date(now - 60 * MINUTE).toISOString()
    : new Date(now + 30 * 86_400_000).toISOString();
  deal.properties.hs_is_closed = String(closed);
  deal.properties.hs_is_closed_won = String(closed && probability === 1);
  deal.properties.hs_is_closed_lost = String(closed && probability !== 1);
  deal.properties.hs_lastmodifieddate = modified;
  deal.updatedAt = modified;
}

export function syncDataset(deals: StoredDeal[]): HubSpotDataset {
  return { pipelines: PIPELINES, owners: owners(3), deals };
}

/** The metrics of a pipeline definition, computed from the server's deals (not by the gateway). */
export function expectedMetrics(
  dataset: HubSpotDataset,
  pipelineId: string,
): Record<string, number | null> {
  let open = 0;
  let openAmount = 0;
  let weighted = 0;
  let won = 0;
  let wonAmount = 0;
  let lost = 0;
  for (const deal of dataset.deals) {
    if (deal.archived === true || deal.properties.pipeline !== pipelineId) continue;
    const amount = Number(deal.properties.amount ?? 0);
    const { closed, probability } = stageOf(pipelineId, deal.properties.dealstage!);
    if (!closed) {
      open += 1;
      openAmount += amount;
      weighted += amount * probability;
    } else if (probability === 1) {
      won += 1;
      wonAmount += amount;
    } else lost += 1;
  }
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    pipeline_value: round(openAmount),
    weighted_pipeline_value: round(weighted),
    open_opportunities: open,
    win_rate: won + lost === 0 ? null : round((won / (won + lost)) * 100),
    average_deal_size: won === 0 ? null : round(wonAmount / won),
  };
}
