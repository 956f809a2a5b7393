import { ConflictError } from '../errors';
import type { SkippedItem } from './skipped';
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
export const REQUIRED_PROPERTIES = ['pipeline', 'dealstage'];

const OVERRIDE = 'send "force": true (CLI --force) to import it anyway';

/** What the usable-deals guard needs to know of the deals read. */
export interface DealsSeen {
  /** Deals that count. */
  usable: number;
  /** Deal copies read that are not archived (incremental), or every copy (full). */
  live: number;
  /** The REQUIRED_PROPERTIES some live copy has a value for. */
  present: ReadonlySet<string>;
  /** The first deal skipped, in input order. */
  firstSkipped: SkippedItem | undefined;
}

/**
 * The guard against losing data by mistake (docs/importing.md): an import in which no deal is
 * usable is refused with the reason (the property every deal lacks and how to request it, when
 * that is the cause). An incremental import carrying no deal, or only archived ones, changes
 * nothing but what it says and passes.
 */
export function checkUsableDeals(seen: DealsSeen, mode: ImportMode): void {
  if (seen.usable > 0) return;
  if (mode === 'incremental' && seen.live === 0) return;
  if (seen.live === 0) {
    throw new ConflictError(
      `The import carries no deal: a full import is the whole picture, so every deal would leave; ${OVERRIDE}`,
    );
  }
  const missing = REQUIRED_PROPERTIES.filter((key) => !seen.present.has(key));
  if (missing.length > 0) {
    const names = missing.map((key) => `\`${key}\``).join(' and ');
    throw new ConflictError(
      `No deal is usable: no deal has the propert${missing.length > 1 ? 'ies' : 'y'} ${names}: request ` +
        `${missing.length > 1 ? 'them' : 'it'} with \`properties=${DEAL_PROPERTIES.join(',')}\` on GET /crm/v3/objects/deals; ${OVERRIDE}`,
    );
  }
  const first = seen.firstSkipped;
  throw new ConflictError(
    `No deal is usable: all ${seen.live} deals were skipped` +
      (first ? ` (deal ${first.id}: ${first.reason})` : '') +
      `; ${OVERRIDE}`,
  );
}

/** A full import that would keep fewer than half of the latest snapshot's deals is refused. */
export function checkKeptDeals(kept: number, latestDeals: number): void {
  if (kept * 2 >= latestDeals) return;
  throw new ConflictError(
    `This full import keeps ${kept} of the latest snapshot's ${latestDeals} deals (fewer than half): every deal it ` +
      `does not carry would leave. For changes only, send "mode": "incremental"; ${OVERRIDE}`,
  );
}

/**
 * An incremental import (a sync's included) that removes more than half of the latest snapshot's
 * deals is refused: what it archives, the deals it carries that are no longer usable, and the
 * kept deals whose stage its pipelines no longer have.
 */
export function checkRemovedDeals(removed: number, latestDeals: number): void {
  if (removed * 2 <= latestDeals) return;
  throw new ConflictError(
    `This incremental import removes ${removed} of the latest snapshot's ${latestDeals} deals (more than half): ` +
      `the deals it archives, those it carries that are no longer usable, and those whose stage its pipelines no longer have all leave; ${OVERRIDE}`,
  );
}

/**
 * An import that leaves no pipeline, when the latest snapshot had some, is refused: every deal
 * would leave with them. A full import in that case has no usable deal and is refused before.
 */
export function checkPipelinesLeft(definitions: number, latestPipelines: number): void {
  if (definitions > 0 || latestPipelines === 0) return;
  throw new ConflictError(
    `This import leaves no pipeline (the latest snapshot has ${latestPipelines}): its pipelines.results holds none that is not archived, ` +
      `so every deal would leave. To keep the latest snapshot's pipelines, leave pipelines out of an incremental import; ${OVERRIDE}`,
  );
}

/** How far ahead of the clock `snapshot_at` may be: clocks differ a little, exports take time. */
export const MAX_SNAPSHOT_AHEAD_MS = 5 * 60_000;

/**
 * A `snapshot_at` more than MAX_SNAPSHOT_AHEAD_MS after `now` is refused: reads take the latest
 * snapshot by the moment it represents, so one dated ahead would stay the latest, hiding every
 * later import from reads that name no snapshot, and retention counts its window from it.
 */
export function checkSnapshotAt(snapshotAt: Date | null, now: Date): void {
  if (snapshotAt === null || snapshotAt.getTime() - now.getTime() <= MAX_SNAPSHOT_AHEAD_MS) return;
  throw new ConflictError(
    `snapshot_at ${snapshotAt.toISOString()} is in the future (the gateway's clock says ${now.toISOString()}; at most ` +
      `${MAX_SNAPSHOT_AHEAD_MS / 60_000} minutes ahead are accepted): a snapshot dated ahead would stay the latest, hiding every later ` +
      `import from reads that name no snapshot. Send the moment the data was read; ${OVERRIDE}`,
  );
}
