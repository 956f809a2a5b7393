/**
 * The HubSpot CRM v3 response bodies an import takes, as the API returns them. Every property
 * value is a string or null; shapes are checked by `validateCrmDocuments` before anything is read.
 */

/** One stage of GET /crm/v3/pipelines/deals. `metadata.isClosed` is "true"/"false", `probability` "0.2". */
export interface HubSpotStage {
  id: string;
  label?: string | null;
  displayOrder?: number | string | null;
  archived?: boolean | null;
  metadata?: { isClosed?: string | boolean | null; probability?: string | number | null } | null;
}

export interface HubSpotPipeline {
  id: string;
  label?: string | null;
  displayOrder?: number | string | null;
  archived?: boolean | null;
  stages: HubSpotStage[];
}

export interface HubSpotOwnerTeam {
  id: string;
  name?: string | null;
  primary?: boolean | null;
}

/** One owner of GET /crm/v3/owners. `userId: null` or `archived: true` means deactivated. */
export interface HubSpotOwner {
  id: string;
  email?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  userId?: number | string | null;
  archived?: boolean | null;
  teams?: HubSpotOwnerTeam[] | null;
}

/** One value a property had, as `propertiesWithHistory` lists them (newest first). */
export interface HubSpotPropertyVersion {
  value: string | null;
  timestamp: string;
}

/**
 * One deal of GET /crm/v3/objects/deals; `hs_date_entered_<stageId>` properties carry stage
 * history, and so does `propertiesWithHistory.dealstage` when asked for (every stage the deal was
 * in, with when, newest first).
 */
export interface HubSpotDeal {
  id: string;
  properties?: Record<string, string | null | undefined> | null;
  propertiesWithHistory?: Record<string, HubSpotPropertyVersion[] | null | undefined> | null;
  createdAt?: string | null;
  updatedAt?: string | null;
  archived?: boolean | null;
}

export interface HubSpotPage<T> {
  results: T[];
  paging?: unknown;
}

/**
 * The import's input, HubSpot bodies untouched. `deals` is one page or an array of pages.
 * `pipelines` and `owners` are null when an incremental import leaves them out.
 */
export interface CrmImportDocuments {
  pipelines: HubSpotPage<HubSpotPipeline> | null;
  owners: HubSpotPage<HubSpotOwner> | null;
  deals: HubSpotPage<HubSpotDeal>[];
}
