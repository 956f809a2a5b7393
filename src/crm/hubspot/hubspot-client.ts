import type { GatewayConfig } from '../../config';
import type { CrmApiBudget } from '../connector';
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
  /**
   * Every deal that is not archived, with these properties: the pages of
   * `GET /crm/v3/objects/deals`, each handed on as it arrives.
   */
  allDeals(properties: readonly string[]): AsyncIterable<HubSpotPage<HubSpotDeal>>;
  /** Archived deals (`archived: true` each), page by page; with `since`, only those archived at or after it. */
  archivedDeals(since?: Date): AsyncIterable<HubSpotPage<HubSpotDeal>>;
  /**
   * Deals modified at or after `since` (and at or before `until`), with these properties, through
   * `POST /crm/v3/objects/deals/search`, page by page (src/crm/hubspot/search-modified-deals.ts).
   */
  modifiedDeals(
    since: Date,
    properties: readonly string[],
    until?: Date,
  ): AsyncIterable<HubSpotPage<HubSpotDeal>>;
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
      // Owners are as many as the account's users: one body, like the pipelines.
      const results: HubSpotOwner[] = [];
      for await (const page of listPages<HubSpotOwner>(http, {
        method: 'GET',
        path: '/crm/v3/owners',
        query: { limit: OWNERS_PAGE, archived: 'false' },
      }))
        results.push(...page.results);
      return { results };
    },
    allDeals(properties) {
      return listPages<HubSpotDeal>(http, {
        method: 'GET',
        path: '/crm/v3/objects/deals',
        query: { limit: DEALS_PAGE, archived: 'false', properties: properties.join(',') },
      });
    },
    async *archivedDeals(since) {
      for await (const page of listPages<HubSpotDeal & { archivedAt?: string }>(http, {
        method: 'GET',
        path: '/crm/v3/objects/deals',
        query: { limit: DEALS_PAGE, archived: 'true' },
      })) {
        if (since === undefined) {
          yield page;
          continue;
        }
        // The list endpoint cannot filter on archivedAt; a deal without one is kept (it may be recent).
        const recent = (deal: { archivedAt?: string }) =>
          deal.archivedAt === undefined || !(Date.parse(deal.archivedAt) < since.getTime());
        yield { ...page, results: page.results.filter(recent) };
      }
    },
    modifiedDeals(since, properties, until) {
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
