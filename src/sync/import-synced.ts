import type { Principal } from '../auth/principal';
import type { ImportQueue } from '../import/import-queue';
import {
  importCrmData,
  type CrmImportResult,
  type ImportProgress,
} from '../services/import.service';
import type { HubSpotRead } from './read-hubspot';

/**
 * The one call from the sync into the import service: what was read, as a full or an incremental
 * import (the deals changed, archived ones marked `archived: true`, on top of the latest snapshot).
 */
export function importSynced(
  principal: Principal,
  read: HubSpotRead,
  options: {
    force: boolean;
    queue: ImportQueue;
    retentionDays: number;
    onProgress: (progress: ImportProgress) => void;
  },
): Promise<CrmImportResult> {
  return importCrmData(
    { principal },
    {
      ...read.documents,
      homeCurrency: read.homeCurrency ?? undefined,
      mode: read.mode,
      force: options.force,
    },
    { queue: options.queue, retentionDays: options.retentionDays, onProgress: options.onProgress },
  );
}
