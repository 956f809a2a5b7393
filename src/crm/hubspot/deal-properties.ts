import type { HubSpotPage, HubSpotPipeline } from '../../import/hubspot.types';

/**
 * The deal properties the import reads (src/import/normalise.ts), and those the sync and the
 * currency rules need: HubSpot returns only the properties a request names, so a property left
 * out here is missing from every deal.
 */
export const DEAL_PROPERTIES = [
  'dealname',
  'amount',
  'dealstage',
  'pipeline',
  'closedate',
  'createdate',
  'hubspot_owner_id',
  'deal_currency_code',
  'amount_in_home_currency',
  'hs_exchange_rate',
  'hs_lastmodifieddate',
  'hs_is_closed',
  'hs_is_closed_won',
  'hs_is_closed_lost',
  'hs_manual_forecast_category',
  'hs_forecast_category',
] as const;

/**
 * DEAL_PROPERTIES plus, for every stage of the pipelines, `hs_v2_date_entered_<stageId>` and the
 * older `hs_date_entered_<stageId>`: when each deal entered the stage, which the stage history
 * (docs/analytics.md) and backfill read.
 */
export function dealPropertiesFor(pipelines: HubSpotPage<HubSpotPipeline>): string[] {
  const stageDates = pipelines.results.flatMap((pipeline) =>
    (pipeline.stages ?? []).flatMap((stage) => [
      `hs_v2_date_entered_${stage.id}`,
      `hs_date_entered_${stage.id}`,
    ]),
  );
  return [...new Set<string>([...DEAL_PROPERTIES, ...stageDates])];
}
