import { createProgressReporter } from '../import/progress-reporter';
import type { SyncProgress } from './crm-sync';

const READ_LABEL = { pipelines: 'pipelines', owners: 'owners', deals: 'deals' } as const;

/** How often the deals read are printed on a terminal-less stream, at most. */
const DEALS_LINE_EVERY = 10_000;

/**
 * Progress output of `npm run sync`: one line per read step (what was read from the CRM, how
 * many), the deals read as they come (every 10 000), then the import's bar on a TTY, or its plain
 * lines otherwise.
 */
export function createSyncProgressReporter(
  crm: string,
  stream: NodeJS.WriteStream = process.stderr,
): {
  report: (progress: SyncProgress) => void;
  done: () => void;
} {
  const importing = createProgressReporter(stream);
  let dealsShown = 0;
  let dealsRead = 0;
  const showDeals = () => {
    if (dealsRead === dealsShown) return;
    dealsShown = dealsRead;
    stream.write(`read from ${crm}: ${dealsRead} deals\n`);
  };
  return {
    report(progress) {
      if (progress.step === 'reading') {
        if (progress.what === 'deals') {
          dealsRead = progress.count;
          if (dealsRead - dealsShown >= DEALS_LINE_EVERY) showDeals();
          return;
        }
        stream.write(`read from ${crm}: ${progress.count} ${READ_LABEL[progress.what]}\n`);
        return;
      }
      showDeals();
      importing.report(progress);
    },
    done() {
      showDeals();
      importing.done();
    },
  };
}
