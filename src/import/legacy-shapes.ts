/**
 * Bodies of HubSpot's legacy APIs, told by their shape. The import takes CRM v3 bodies only: a
 * legacy body is refused with a message naming what it is and the v3 request to send instead,
 * rather than being misread (v1 deals look like a combined file, v2 owners like deal pages).
 */
export interface LegacyShape {
  /** What the body is, e.g. `a legacy v1 deals body (GET /deals/v1/deal/paged: {deals, hasMore, offset})`. */
  what: string;
  /** The CRM v3 request whose body to send instead. */
  instead: string;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const LEGACY_V1_DEALS: LegacyShape = {
  what: 'a legacy v1 deals body (GET /deals/v1/deal/paged: {deals, hasMore, offset})',
  instead: 'GET /crm/v3/objects/deals',
};

export const LEGACY_V1_PIPELINES: LegacyShape = {
  what: 'a legacy v1 pipelines body (GET /crm-pipelines/v1/pipelines/deals: pipelineId and stageId instead of id)',
  instead: 'GET /crm/v3/pipelines/deals',
};

export const LEGACY_V2_OWNERS: LegacyShape = {
  what: 'a legacy v2 owners body (GET /owners/v2/owners: an array of owners with ownerId)',
  instead: 'GET /crm/v3/owners',
};

/** `{deals: [...], hasMore, offset}`: the v1 paged deals list (properties as `{value, timestamp}`). */
export function isLegacyV1Deals(doc: unknown): boolean {
  return isObject(doc) && Array.isArray(doc.deals) && ('hasMore' in doc || 'offset' in doc);
}

/** `{results: [{pipelineId, stages: [{stageId}]}]}`: the v1 pipelines list. */
export function isLegacyV1Pipelines(doc: unknown): boolean {
  if (!isObject(doc) || !Array.isArray(doc.results)) return false;
  const first = doc.results[0];
  return isObject(first) && 'pipelineId' in first && !('id' in first);
}

/** A top-level array of `{ownerId, ...}`: the v2 owners list. */
export function isLegacyV2Owners(doc: unknown): boolean {
  if (!Array.isArray(doc) || doc.length === 0) return false;
  const first = doc[0];
  return isObject(first) && 'ownerId' in first && !('results' in first);
}

/** The legacy shape `doc` has, whichever document it was sent as; null for anything else. */
export function legacyShapeOf(doc: unknown): LegacyShape | null {
  if (isLegacyV1Deals(doc)) return LEGACY_V1_DEALS;
  if (isLegacyV1Pipelines(doc)) return LEGACY_V1_PIPELINES;
  if (isLegacyV2Owners(doc)) return LEGACY_V2_OWNERS;
  return null;
}

/** The sentence a refusal says: what was sent and what to fetch instead. */
export function legacyShapeMessage(field: string, shape: LegacyShape): string {
  return `${field} is ${shape.what}, which the import does not read: send the body of ${shape.instead} instead`;
}
