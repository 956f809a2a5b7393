import type { LoadedMutation, Mutation } from './mutation';

/**
 * Where committed mutations go to become durable. The catalog calls `append` with the mutations
 * of one command (a batch is one record: replay applies all of it or none of it), then awaits
 * `sync` before the command is acknowledged.
 *
 * Implementations: `MemoryJournal` (tests; nothing is written) and the file journal (append-only
 * log with length + CRC framing, group-committed fsync, snapshot compaction, directory lock).
 */
export interface Journal {
  /**
   * Opens the journal and returns every mutation needed to rebuild the state, in order
   * (the latest snapshot's contents first, then the log after it). A torn last record is ignored.
   * With `apply`, a journal may instead hand each mutation to it as soon as it is read, in the
   * same order, and return only what it did not hand over: the state is then rebuilt without
   * every mutation of the journal being in memory at once, and an insert or a replace it hands
   * over may keep its documents as BSON (EncodedWrite) for the collection to decode when first
   * read. What it returns is decoded.
   */
  open(apply?: (mutation: LoadedMutation) => void): Promise<Mutation[]>;
  /** Buffers one batch; it is durable once a later `sync()` resolves. */
  append(batch: Mutation[]): void;
  /** Resolves when everything appended so far is on disk (fsync). */
  sync(): Promise<void>;
  /**
   * Writes a fresh snapshot from `state` (mutations that recreate the current state) and swaps it
   * in atomically, truncating the log. Called by the catalog when the log grows past a threshold.
   */
  compact(state: () => Iterable<LoadedMutation>): Promise<void>;
  /** Bytes in the log since the last snapshot: the catalog's cue to compact. */
  readonly logBytes: number;
  /**
   * Bytes of the current snapshot, where the journal knows them: the catalog compacts when the log
   * reaches a fraction of it, so that the work of compacting stays proportional to the writes.
   */
  readonly snapshotBytes?: number;
  close(): Promise<void>;
}
