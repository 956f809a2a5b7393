import type { GatewayConfig } from '../../config';
import type {
  HubSpotDeal,
  HubSpotOwner,
  HubSpotPage,
  HubSpotPipeline,
} from '../../import/hubspot.types';
import { HubSpotAuthError } from './hubspot-errors';
import { HubSpotHttp, type HubSpotHttpOptions } from './hubspot-http';
import { asPage, listPages } from './list-pages';
import { searchModifiedDeals } from './search-modified-deals';
import type { CrmApiBudget } from './request-pacer';

/** The client's settings beyond HubSpotHttpOptions. */
export interface HubSpotClientOptions extends HubSpotHttpOptions {
  /** Results one search query can page through; default 10000, HubSpot's cap (tests set it low). */
  searchResultCap?: number;
}

/**
 * Reads HubSpot's CRM v3 API and answers its bodies in the shapes the import takes
 * (src/import/hubspot.types.ts): the pipelines body, one owners body, and deal pages.
 */
export interface HubSpotClient {
  /**
   * The portal's home currency (`companyCurrency` of `GET /account-info/v3/details`), which deals'
   * `amount_in_home_currency` is in; null when the token may not read the account's details.
   */
  fetchHomeCurrency(): Promise<string | null>;
  /** `GET /crm/v3/pipelines/deals`, as answered. */
  fetchPipelines(): Promise<HubSpotPage<HubSpotPipeline>>;
  /**
   * Every active owner with their teams (`GET /crm/v3/owners`, all pages joined in one body).
   * Archived owners are not asked for: the import creates no member for them either way.
   */
  fetchOwners(): Promise<HubSpotPage<HubSpotOwner>>;
  /** Every deal that is not archived, with these properties: all pages of `GET /crm/v3/objects/deals`. */
  fetchAllDeals(properties: readonly string[]): Promise<HubSpotPage<HubSpotDeal>[]>;
  /** Archived deals (`archived: true` each), all pages; with `since`, only those archived at or after it. */
  fetchArchivedDeals(since?: Date): Promise<HubSpotPage<HubSpotDeal>[]>;
  /**
   * Deals modified at or after `since` (and at or before `until`), with these properties, through
   * `POST /crm/v3/objects/deals/search`; each deal once, in its latest copy.
   */
  searchDealsModifiedSince(
    since: Date,
    properties: readonly string[],
    until?: Date,
  ): Promise<HubSpotPage<HubSpotDeal>[]>;
  /** The API requests HubSpot's answers said are left (rate-limit headers); null fields before any. */
  budget(): CrmApiBudget;
}

// Largest pages each endpoint serves: owners 500, objects and search 100.
const OWNERS_PAGE = '500';
const DEALS_PAGE = '100';
const SEARCH_PAGE = 100;

export function createHubSpotClient(options: HubSpotClientOptions): HubSpotClient {
  const http = new HubSpotHttp(options);
  const resultCap = options.searchResultCap ?? 10_000;
  return {
    budget: () => http.budget,
    async fetchHomeCurrency() {
      try {
        const details = (await http.send({ method: 'GET', path: '/account-info/v3/details' })) as {
          companyCurrency?: unknown;
        } | null;
        return typeof details?.companyCurrency === 'string' && details.companyCurrency !== ''
          ? details.companyCurrency
          : null;
      } catch (error) {
        // Without the details, deals in another currency are skipped with a reason (never summed);
        // every other refusal of the token still stops the sync at its first CRM request.
        if (error instanceof HubSpotAuthError && error.status === 403) return null;
        throw error;
      }
    },
    async fetchPipelines() {
      const path = '/crm/v3/pipelines/deals';
      return asPage<HubSpotPipeline>(await http.send({ method: 'GET', path }), `GET ${path}`).page;
    },
    async fetchOwners() {
      const pages = await listPages<HubSpotOwner>(http, {
        method: 'GET',
        path: '/crm/v3/owners',
        query: { limit: OWNERS_PAGE, archived: 'false' },
      });
      return { results: pages.flatMap((page) => page.results) };
    },
    fetchAllDeals(properties) {
      return listPages<HubSpotDeal>(http, {
        method: 'GET',
        path: '/crm/v3/objects/deals',
        query: { limit: DEALS_PAGE, archived: 'false', properties: properties.join(',') },
      });
    },
    async fetchArchivedDeals(since) {
      const pages = await listPages<HubSpotDeal & { archivedAt?: string }>(http, {
        method: 'GET',
        path: '/crm/v3/objects/deals',
        query: { limit: DEALS_PAGE, archived: 'true' },
      });
      if (since === undefined) return pages;
      // The list endpoint cannot filter on archivedAt; a deal without one is kept (it may be recent).
      const recent = (deal: { archivedAt?: string }) =>
        deal.archivedAt === undefined || !(Date.parse(deal.archivedAt) < since.getTime());
      return pages.map((page) => ({ ...page, results: page.results.filter(recent) }));
    },
    searchDealsModifiedSince(since, properties, until) {
      return searchModifiedDeals(http, {
        since,
        until,
        properties,
        pageSize: SEARCH_PAGE,
        resultCap,
      });
    },
  };
}

/** The client for the configured HubSpot account, or null when HUBSPOT_TOKEN is unset. */
export function hubSpotClientFromConfig(
  config: Pick<GatewayConfig, 'hubspotToken' | 'hubspotBaseUrl'>,
  options: Omit<HubSpotClientOptions, 'baseUrl' | 'token'> = {},
): HubSpotClient | null {
  if (config.hubspotToken === undefined) return null;
  return createHubSpotClient({
    ...options,
    baseUrl: config.hubspotBaseUrl,
    token: config.hubspotToken,
  });
}
