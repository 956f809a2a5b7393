import type { Principal } from '../auth/principal';
import type { ImportQueue } from '../import/import-queue';
import { importCrmData, type CrmImportResult, type ImportProgress } from '../services/import.service';
import type { HubSpotRead } from './read-hubspot';

/** The one call from the sync into the import service: the documents read, as a full import. */
export function importSynced(
  principal: Principal,
  read: HubSpotRead,
  options: { force: boolean; queue: ImportQueue; onProgress: (progress: ImportProgress) => void },
): Promise<CrmImportResult> {
  return importCrmData(principal, { ...read.documents }, { queue: options.queue, onProgress: options.onProgress });
}

/** Whether the import takes incremental bodies; until it does, every sync reads and imports everything. */
export const INCREMENTAL_IMPORTS = false;
