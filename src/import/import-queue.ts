import { settleImport } from './discard-import';

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

  /** Runs `task` after every task queued before it, whatever their outcome. */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.tail.then(task, task);
    this.tail = run.catch(() => undefined);
    return run;
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
