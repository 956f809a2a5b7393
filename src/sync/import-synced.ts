import type { Principal } from '../auth/principal';
import type { CrmDealPage, CrmRead } from '../crm/connector';
import type { HubSpotDeal, HubSpotPage } from '../import/hubspot.types';
import type { ImportQueue } from '../import/import-queue';
import type { CrmSyncMode } from '../models/crm-sync.model';
import {
  importCrmData,
  type CrmImportResult,
  type ImportProgress,
} from '../services/import.service';

/**
 * The one call from the sync into the import service: what a connector read, as a full or an
 * incremental import (the deals changed, removed ones marked `archived: true`, on top of the
 * latest snapshot) that commits nothing when nothing changed.
 *
 * The import takes its deal pages in memory: the pages are gathered here as the connector hands
 * them on, which is where memory grows with the account. Once the import reads a stream of pages,
 * `deals` goes to it as it is.
 */
export async function importSynced(
  principal: Principal,
  read: Omit<CrmRead, 'deals'> & { deals: AsyncIterable<CrmDealPage> },
  options: {
    mode: CrmSyncMode;
    force: boolean;
    queue: ImportQueue;
    retentionDays: number;
    onProgress: (progress: ImportProgress) => void;
  },
): Promise<CrmImportResult> {
  const pages: HubSpotPage<HubSpotDeal>[] = [];
  for await (const page of read.deals) pages.push({ results: page.results });
  return importCrmData(
    { principal },
    {
      pipelines: read.pipelines,
      owners: read.owners,
      deals: pages.length === 0 ? [{ results: [] }] : pages,
      homeCurrency: read.homeCurrency ?? undefined,
      mode: options.mode,
      force: options.force,
    },
    {
      queue: options.queue,
      retentionDays: options.retentionDays,
      onProgress: options.onProgress,
      commitUnchanged: false,
    },
  );
}
