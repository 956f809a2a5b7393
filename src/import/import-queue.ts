import { settleImport } from './discard-import';
import type { ImportMode } from './validate-documents';

/** How an import ended, for the app's metrics. */
export interface ImportReport {
  mode: ImportMode;
  /** `reused`: the same data was imported before; `refused`: a 4xx (the guard, bad input); `failed`: anything else. */
  outcome: 'committed' | 'reused' | 'refused' | 'failed';
  /** From the moment it ran (after the imports queued before it). */
  seconds: number;
}

/**
 * The imports of one gateway instance, one at a time: two concurrent imports would race on
 * creating the same members and teams, and idempotence needs the first to finish before the
 * second checks. Also the imports whose clean-up or publishing failed (the database went away):
 * the next import finishes them first, so their hidden members and teams neither linger until a
 * restart nor collide with what the next one creates. Owned by the app (DataAccess.imports).
 */
export class ImportQueue {
  private tail: Promise<unknown> = Promise.resolve();

  private readonly unsettled = new Set<string>();

  private queued = 0;

  private runningSince: Date | null = null;

  private readonly listeners: Array<(report: ImportReport) => void> = [];

  /** Calls `listener` as each import of this instance ends (the app's metrics). */
  onImportEnded(listener: (report: ImportReport) => void): void {
    this.listeners.push(listener);
  }

  /** Tells the listeners how an import ended (import.service.ts). */
  importEnded(report: ImportReport): void {
    for (const listener of this.listeners) listener(report);
  }

  /** Runs `task` after every task queued before it, whatever their outcome. */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    this.queued += 1;
    const timed = async (): Promise<T> => {
      this.runningSince = new Date();
      try {
        return await task();
      } finally {
        this.queued -= 1;
        this.runningSince = null;
      }
    };
    const run = this.tail.then(timed, timed);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** When the task running now started (null when none is running or waiting). */
  busySince(): Date | null {
    return this.queued === 0 ? null : (this.runningSince ?? new Date());
  }

  /** Remembers an import left half-settled, for the next import to finish. */
  leaveUnsettled(importId: string): void {
    this.unsettled.add(importId);
  }

  /** Finishes the imports left half-settled. */
  async settleLeftovers(): Promise<void> {
    for (const importId of this.unsettled) {
      await settleImport(importId);
      this.unsettled.delete(importId);
    }
  }
}
