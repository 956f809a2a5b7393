import type {
  HubSpotDeal,
  HubSpotOwner,
  HubSpotPage,
  HubSpotPipeline,
} from '../import/hubspot.types';

/**
 * The boundary between the sync and a CRM: a connector reads one CRM and hands over what it read
 * in the import's shapes (the CRM import documents, src/import/hubspot.types.ts), so that every
 * CRM goes through the one import. HubSpot's answers are those shapes; another CRM's records are
 * mapped onto them by its connector.
 */

/** The CRMs a sync can read (`CRM_PROVIDER`). */
export type CrmProvider = 'hubspot' | 'salesforce';
export const CRM_PROVIDERS: readonly CrmProvider[] = ['hubspot', 'salesforce'];

/** One page of deals as read: changed (or, on a full read, every) deals, and removed ones. */
export interface CrmDealPage {
  /** Deals in the import's shape; a deal removed from the CRM carries `archived: true`. */
  results: HubSpotDeal[];
  /**
   * The latest modification time (ms since the epoch) the CRM gave a deal of this page, which
   * the next incremental read may start from once the sync commits; null when the page has none.
   */
  latestModifiedAt: number | null;
}

/** What a connector read before the deals, and the deals themselves, still to be read. */
export interface CrmRead {
  /** The pipelines (sales processes) with their stages, as one body. */
  pipelines: HubSpotPage<HubSpotPipeline>;
  /** The owners (users) of deals with their team, as one body. */
  owners: HubSpotPage<HubSpotOwner>;
  /** The currency amounts are converted into when a deal is in another (the portal's, the org's corporate one); null when unknown. */
  homeCurrency: string | null;
  /**
   * The deal pages, each read when the consumer asks for it: memory holds a page at a time, not
   * the account. Full read: every deal; incremental: those changed or removed since the point given.
   */
  deals: AsyncIterable<CrmDealPage>;
}

/**
 * What the CRM's last answer said of the API requests left, per window; null where it said
 * nothing. HubSpot: `X-HubSpot-RateLimit-Remaining` / `-Max` (the rolling window, 10 s for private
 * apps) and `X-HubSpot-RateLimit-Daily-Remaining` / `-Daily`; Salesforce: `Sforce-Limit-Info`'s
 * `api-usage` (daily only, the last 24 hours).
 */
export interface CrmApiBudget {
  rolling: { remaining: number; max: number | null } | null;
  daily: { remaining: number; max: number | null } | null;
}

/** What a read reports as it goes, for progress output. */
export type CrmReadStep = 'pipelines' | 'owners';

export interface CrmConnector {
  readonly provider: CrmProvider;
  /** The CRM's name in messages: `HubSpot`, `Salesforce`. */
  readonly name: string;
  /**
   * Reads the pipelines, owners and currency, and opens the deals. `since` null: a full read;
   * a date: the deals modified or removed at or after it. `signal` stops the read between
   * requests (the sync was stopped).
   */
  read(
    since: Date | null,
    options?: { onStep?: (step: CrmReadStep, count: number) => void; signal?: AbortSignal },
  ): Promise<CrmRead>;
  /** The API requests left as the CRM last said (for the gateway's metrics). */
  budget(): CrmApiBudget;
}

/** Anything that stopped a CRM call; the message names the call and never holds a credential. */
export class CrmError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
