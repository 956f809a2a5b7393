import { ConflictError } from '../errors';
import type { CrmImportDocuments } from './hubspot.types';
import type { NormalisedCrmData } from './normalised.types';
import type { ImportMode } from './validate-documents';

/** The deal properties the import reads; what to ask HubSpot for (docs/importing.md). */
export const DEAL_PROPERTIES = [
  'dealname',
  'amount',
  'dealstage',
  'pipeline',
  'closedate',
  'createdate',
  'hubspot_owner_id',
];

/** Without these a deal cannot count: it must sit in a stage of a pipeline. */
const REQUIRED_PROPERTIES = ['pipeline', 'dealstage'];

const OVERRIDE = 'send "force": true (CLI --force) to import it anyway';

/**
 * The guard against losing data by mistake (docs/importing.md): an import in which no deal is
 * usable is refused with the reason (the property every deal lacks and how to request it, when
 * that is the cause). An incremental import carrying no deal, or only archived ones, changes
 * nothing but what it says and passes.
 */
export function checkUsableDeals(
  documents: CrmImportDocuments,
  data: NormalisedCrmData,
  mode: ImportMode,
): void {
  if (data.deals.length > 0) return;
  const carried = documents.deals.flatMap((page) => page.results);
  const live = mode === 'incremental' ? carried.filter((deal) => deal.archived !== true) : carried;
  if (mode === 'incremental' && live.length === 0) return;
  if (live.length === 0) {
    throw new ConflictError(
      `The import carries no deal: a full import is the whole picture, so every deal would leave; ${OVERRIDE}`,
    );
  }
  const missing = REQUIRED_PROPERTIES.filter((key) =>
    live.every((deal) => !hasValue(deal.properties?.[key])),
  );
  if (missing.length > 0) {
    const names = missing.map((key) => `\`${key}\``).join(' and ');
    throw new ConflictError(
      `No deal is usable: no deal has the propert${missing.length > 1 ? 'ies' : 'y'} ${names}: request ` +
        `${missing.length > 1 ? 'them' : 'it'} with \`properties=${DEAL_PROPERTIES.join(',')}\` on GET /crm/v3/objects/deals; ${OVERRIDE}`,
    );
  }
  const liveIds = new Set(live.map((deal) => deal.id));
  const first = data.skipped.find((item) => liveIds.has(item.id));
  throw new ConflictError(
    `No deal is usable: all ${live.length} deals were skipped` +
      (first ? ` (deal ${first.id}: ${first.reason})` : '') +
      `; ${OVERRIDE}`,
  );
}

/** A full import that would keep fewer than half of the latest snapshot's deals is refused. */
export function checkKeptDeals(data: NormalisedCrmData, latestDealIds: Set<string>): void {
  const kept = data.deals.reduce((n, deal) => (latestDealIds.has(deal.dealId) ? n + 1 : n), 0);
  if (kept * 2 >= latestDealIds.size) return;
  throw new ConflictError(
    `This full import keeps ${kept} of the latest snapshot's ${latestDealIds.size} deals (fewer than half): every deal it ` +
      `does not carry would leave. For changes only, send "mode": "incremental"; ${OVERRIDE}`,
  );
}

function hasValue(value: unknown): boolean {
  return (
    value !== undefined && value !== null && !(typeof value === 'string' && value.trim() === '')
  );
}
