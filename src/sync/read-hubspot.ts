import { dealPropertiesFor } from '../crm/hubspot/deal-properties';
import type { HubSpotClient } from '../crm/hubspot/hubspot-client';
import type { CrmImportDocuments, HubSpotDeal, HubSpotPage } from '../import/hubspot.types';
import type { CrmSyncMode } from '../models/crm-sync.model';

/**
 * How far before the high-water mark an incremental sync starts reading: deals modified in the
 * same millisecond as the mark, or indexed by HubSpot's search a little late, come again rather
 * than being missed. Reading a deal again is harmless: its state is the same.
 */
export const HIGH_WATER_OVERLAP_MS = 5 * 60_000;

/** What a sync read from HubSpot, in the import's shapes. */
export interface HubSpotRead {
  mode: CrmSyncMode;
  documents: CrmImportDocuments;
  /** The portal's home currency, for deals' `amount_in_home_currency`; null when unknown. */
  homeCurrency: string | null;
  fetched: { deals: number; archived: number };
  /**
   * The high-water mark this read allows once committed: the latest `hs_lastmodifieddate` read,
   * but no later than the moment the deal read began (a deal changed while the pages were read
   * may have been read in its earlier copy); null when no deal was read (the mark stays).
   */
  highWaterMark: Date | null;
}

/** The steps of a read, for progress output. */
export type ReadStep = 'pipelines' | 'owners' | 'deals' | 'archived';

function modifiedAt(deal: HubSpotDeal): number | null {
  const raw = deal.properties?.hs_lastmodifieddate;
  if (raw === undefined || raw === null || raw === '') return null;
  const ms = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  return Number.isNaN(ms) ? null : ms;
}

function countDeals(pages: HubSpotPage<HubSpotDeal>[]): number {
  return pages.reduce((n, page) => n + page.results.length, 0);
}

/**
 * Reads what a sync imports. Full (`since` null): the pipelines, the owners and every deal.
 * Incremental: the pipelines and owners (a few requests; stage and team changes come with them),
 * the deals modified since `since` through the search endpoint, and the deals archived since,
 * marked `archived: true` so that the import lets them leave.
 */
export async function readHubSpot(
  client: HubSpotClient,
  since: Date | null,
  onStep: (step: ReadStep, count: number) => void = () => undefined,
  now: () => number = Date.now,
): Promise<HubSpotRead> {
  const pipelines = await client.fetchPipelines();
  const homeCurrency = await client.fetchHomeCurrency();
  onStep('pipelines', pipelines.results.length);
  const owners = await client.fetchOwners();
  onStep('owners', owners.results.length);
  const properties = dealPropertiesFor(pipelines);
  const readStart = now();
  let deals: HubSpotPage<HubSpotDeal>[];
  let archived: HubSpotPage<HubSpotDeal>[] = [];
  if (since === null) {
    deals = await client.fetchAllDeals(properties);
    onStep('deals', countDeals(deals));
  } else {
    deals = await client.searchDealsModifiedSince(since, properties);
    onStep('deals', countDeals(deals));
    archived = (await client.fetchArchivedDeals(since)).map((page) => ({
      ...page,
      results: page.results.map((deal) => ({ ...deal, archived: true })),
    }));
    onStep('archived', countDeals(archived));
  }
  let latest: number | null = null;
  for (const page of deals) {
    for (const deal of page.results) {
      const at = modifiedAt(deal);
      if (at !== null && (latest === null || at > latest)) latest = at;
    }
  }
  return {
    mode: since === null ? 'full' : 'incremental',
    documents: { pipelines, owners, deals: [...deals, ...archived] },
    homeCurrency,
    fetched: { deals: countDeals(deals), archived: countDeals(archived) },
    highWaterMark: latest === null ? null : new Date(Math.min(latest, readStart)),
  };
}
