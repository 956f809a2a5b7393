import { createProgressReporter } from '../import/progress-reporter';
import type { SyncProgress } from './crm-sync';

const READ_LABEL = {
  pipelines: 'pipelines',
  owners: 'owners',
  deals: 'deals',
  archived: 'archived deals',
} as const;

/**
 * Progress output of `npm run sync`: one line per HubSpot read step (what was read, how many),
 * then the import's bar on a TTY, or its plain lines otherwise.
 */
export function createSyncProgressReporter(stream: NodeJS.WriteStream = process.stderr): {
  report: (progress: SyncProgress) => void;
  done: () => void;
} {
  const importing = createProgressReporter(stream);
  return {
    report(progress) {
      if (progress.step === 'reading') {
        stream.write(`read from HubSpot: ${progress.count} ${READ_LABEL[progress.what]}\n`);
        return;
      }
      importing.report(progress);
    },
    done: importing.done,
  };
}
