import type { ImportProgress } from '../services/import.service';

const LABEL: Record<ImportProgress['step'], string> = {
  deals: 'reading deals',
  owners: 'members and teams',
  snapshots: 'writing snapshots',
  committing: 'committing',
};

/**
 * Progress output for the CLI: a redrawn bar on a TTY, otherwise one plain line per step and per
 * 10 % (so logs stay readable). Call `done()` once the import finished to end the bar's line.
 */
export function createProgressReporter(stream: NodeJS.WriteStream = process.stderr): {
  report: (progress: ImportProgress) => void;
  done: () => void;
} {
  const tty = stream.isTTY === true;
  let lastStep: string | null = null;
  let lastTenth = -1;
  let drawn = false;
  return {
    report({ step, done, total }) {
      const ratio = total > 0 ? Math.min(1, done / total) : 1;
      if (tty) {
        const width = 30;
        const filled = Math.round(ratio * width);
        const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
        const counter = step === 'snapshots' || step === 'deals' ? ` ${done}/${total}` : '';
        stream.write(
          `\r${bar} ${String(Math.round(ratio * 100)).padStart(3)}% ${LABEL[step]}${counter}\u001b[K`,
        );
        drawn = true;
        return;
      }
      const tenth = Math.floor(ratio * 10);
      if (step !== lastStep || tenth > lastTenth) {
        stream.write(
          `${LABEL[step]}: ${Math.round(ratio * 100)}%${step === 'snapshots' || step === 'deals' ? ` (${done}/${total})` : ''}\n`,
        );
      }
      if (step !== lastStep) lastTenth = -1;
      lastStep = step;
      lastTenth = Math.max(lastTenth, tenth);
    },
    done() {
      if (tty && drawn) stream.write('\n');
    },
  };
}
