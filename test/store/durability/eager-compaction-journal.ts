import type { Journal } from '../../../src/store/storage/journal';
import type { Mutation } from '../../../src/store/storage/mutation';

/**
 * Wraps a journal so the catalog compacts once the log passes `thresholdBytes` instead of its
 * production threshold (64 MB): `logBytes` reads as "very large" from that point on. Lets crash
 * tests reach compaction with a few hundred writes. Everything else is passed through.
 */
export class EagerCompactionJournal implements Journal {
  constructor(
    private readonly inner: Journal,
    private readonly thresholdBytes: number,
  ) {}

  get logBytes(): number {
    return this.inner.logBytes >= this.thresholdBytes ? Number.MAX_SAFE_INTEGER : 0;
  }

  open(): Promise<Mutation[]> {
    return this.inner.open();
  }

  append(batch: Mutation[]): void {
    this.inner.append(batch);
  }

  sync(): Promise<void> {
    return this.inner.sync();
  }

  compact(state: () => Iterable<Mutation>): Promise<void> {
    return this.inner.compact(state);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
