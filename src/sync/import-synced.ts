import type { Principal } from '../auth/principal';
import type { CrmDealPage, CrmRead } from '../crm/connector';
import type { HubSpotDeal, HubSpotPage } from '../import/hubspot.types';
import { dealPagesFrom } from '../import/deal-pages';
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
 * The deal pages go to the import as the connector hands them on: the import reads them as a
 * stream into its bounded sorted runs, so memory is bounded by a page, not by the account.
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
  async function* pages(): AsyncGenerator<HubSpotPage<HubSpotDeal>> {
    for await (const page of read.deals) yield { results: page.results };
  }
  return importCrmData(
    { principal },
    {
      pipelines: read.pipelines,
      owners: read.owners,
      deals: dealPagesFrom(pages()),
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
