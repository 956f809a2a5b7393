import type { Journal } from './journal';
import type { LoadedMutation, Mutation } from './mutation';
import { decodedMutation } from './stored-values';

/**
 * A journal that keeps nothing: the store runs purely in memory (tests, `dataDir: null`).
 * It still counts bytes and records compactions so the catalog's compaction path is testable.
 */
export class MemoryJournal implements Journal {
  private opened = false;
  private bytes = 0;
  /** How many times the catalog asked for compaction (observable by tests). */
  compactions = 0;

  /** `initial`: the state it opens with (a catalog's snapshotMutations, in tests). */
  constructor(private readonly initial: LoadedMutation[] = []) {}

  async open(apply?: (mutation: LoadedMutation) => void): Promise<Mutation[]> {
    if (this.opened)
      throw new Error('MemoryJournal.open(): expected a closed journal, got one already open');
    this.opened = true;
    if (apply) {
      for (const mutation of this.initial) apply(mutation);
      return [];
    }
    return this.initial.map(decodedMutation);
  }

  append(batch: Mutation[]): void {
    if (!this.opened)
      throw new Error('MemoryJournal.append(): expected an open journal, got a closed one');
    // A rough size is enough: it only decides when compaction is worth it.
    this.bytes += batch.length * 64;
  }

  async sync(): Promise<void> {}

  async compact(state: () => Iterable<LoadedMutation>): Promise<void> {
    // Drain the iterator as a real journal would while writing its snapshot.
    Array.from(state());
    this.compactions += 1;
    this.bytes = 0;
  }

  get logBytes(): number {
    return this.bytes;
  }

  async close(): Promise<void> {
    this.opened = false;
  }
}
