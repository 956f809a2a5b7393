import type { HubSpotDeal, HubSpotPage } from '../../import/hubspot.types';
import type { CrmConnector, CrmDealPage } from '../connector';
import { dealPropertiesFor } from './deal-properties';
import type { HubSpotClient } from './hubspot-client';

/** `hs_lastmodifieddate` in ms (HubSpot sends ISO dates, older portals epoch ms); null when unreadable. */
function modifiedAt(deal: HubSpotDeal): number | null {
  const raw = deal.properties?.hs_lastmodifieddate;
  if (raw === undefined || raw === null || raw === '') return null;
  const ms = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  return Number.isNaN(ms) ? null : ms;
}

function latestOf(page: HubSpotPage<HubSpotDeal>): number | null {
  let latest: number | null = null;
  for (const deal of page.results) {
    const at = modifiedAt(deal);
    if (at !== null && (latest === null || at > latest)) latest = at;
  }
  return latest;
}

/** Archived deals leave the snapshot; their archival moves no mark (it is not `hs_lastmodifieddate`). */
async function* removals(
  pages: AsyncIterable<HubSpotPage<HubSpotDeal>>,
): AsyncGenerator<CrmDealPage> {
  for await (const page of pages) {
    yield {
      results: page.results.map((deal) => ({ ...deal, archived: true })),
      latestModifiedAt: null,
    };
  }
}

async function* changes(
  pages: AsyncIterable<HubSpotPage<HubSpotDeal>>,
): AsyncGenerator<CrmDealPage> {
  for await (const page of pages) yield { results: page.results, latestModifiedAt: latestOf(page) };
}

async function* stopping(
  pages: AsyncIterable<CrmDealPage>,
  signal: AbortSignal | undefined,
): AsyncGenerator<CrmDealPage> {
  for await (const page of pages) {
    signal?.throwIfAborted();
    yield page;
  }
}

/**
 * HubSpot (CRM v3) as a connector: its answers are the import's shapes already. Full: the deal
 * list. Incremental: the search on `hs_lastmodifieddate` from `since`, then the deals archived
 * since, marked `archived: true` so that they leave. The pipelines and owners are read every time
 * (a few requests; stage and team changes come with them).
 */
export function hubSpotConnector(client: HubSpotClient): CrmConnector {
  return {
    provider: 'hubspot',
    name: 'HubSpot',
    budget: () => client.budget(),
    async read(since, { onStep, signal } = {}) {
      const pipelines = await client.fetchPipelines();
      const homeCurrency = await client.fetchHomeCurrency();
      onStep?.('pipelines', pipelines.results.length);
      signal?.throwIfAborted();
      const owners = await client.fetchOwners();
      onStep?.('owners', owners.results.length);
      const properties = dealPropertiesFor(pipelines);
      async function* deals(): AsyncGenerator<CrmDealPage> {
        if (since === null) {
          yield* changes(client.allDeals(properties));
          return;
        }
        yield* changes(client.modifiedDeals(since, properties));
        yield* removals(client.archivedDeals(since));
      }
      return { pipelines, owners, homeCurrency, deals: stopping(deals(), signal) };
    },
  };
}
