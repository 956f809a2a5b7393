// Internal to FileJournal: the group-commit writer of the current log file.
import type { FileHandle } from 'node:fs/promises';
import { JournalStateError } from './journal-error';

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

/** Counters for tests and the benchmark: fsyncs per acknowledged batch is `syncs / records`. */
export interface WriterStats {
  /** Records appended. */
  records: number;
  /** write+fsync rounds of the log. */
  syncs: number;
  /** Bytes written to logs. */
  bytes: number;
}

/**
 * Appends framed records to the log with group commit: `append` only queues; the first `sync`
 * starts one write+fsync of everything queued; every record appended while that fsync is in
 * flight goes into the next single write+fsync. So N concurrent writers cost about 2 fsyncs, not N.
 *
 * All file work runs one step at a time (`exclusive`), which is also how compaction swaps the file
 * under the writer without racing a flush. After an I/O error the writer is failed for good:
 * a failed fsync cannot be retried safely (the kernel may have dropped the dirty pages).
 */
export class LogWriter {
  private pending: Buffer[] = [];
  private appendedSeq = 0;
  private durableSeq = 0;
  private waiters: Waiter[] = [];
  private flushQueued = false;
  private chain: Promise<void> = Promise.resolve();
  private failure: Error | undefined;
  readonly stats: WriterStats = { records: 0, syncs: 0, bytes: 0 };

  constructor(private file: FileHandle) {}

  get failed(): Error | undefined {
    return this.failure;
  }

  append(frame: Buffer): void {
    if (this.failure)
      throw new JournalStateError('journal write failed earlier; restart the server', {
        cause: this.failure,
      });
    this.pending.push(frame);
    this.appendedSeq++;
    this.stats.records++;
  }

  /** Resolves once every record appended before this call is fsynced. */
  sync(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const seq = this.appendedSeq;
    if (this.durableSeq >= seq) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ seq, resolve, reject });
      if (!this.flushQueued) {
        this.flushQueued = true;
        void this.exclusive(() => this.flush());
      }
    });
  }

  /** Runs `step` when no other file step is running; steps run in call order. */
  exclusive<T>(step: () => Promise<T>): Promise<T> {
    const run = this.chain.then(step);
    this.chain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * Inside `exclusive` only: takes the queued records away from the writer (the caller writes them
   * elsewhere) and returns the sequence number they reach.
   */
  takePending(): { frames: Buffer[]; seq: number } {
    const frames = this.pending;
    this.pending = [];
    return { frames, seq: this.appendedSeq };
  }

  /** Inside `exclusive` only: gives back what `takePending` took, when the caller could not write it. */
  restorePending(frames: Buffer[]): void {
    this.pending = [...frames, ...this.pending];
  }

  /** Inside `exclusive` only: continue on another file; records up to `seq` are durable there. */
  switchTo(file: FileHandle, durableSeq: number): FileHandle {
    const previous = this.file;
    this.file = file;
    this.markDurable(durableSeq);
    return previous;
  }

  /** Marks the writer failed and rejects everyone waiting. */
  fail(err: Error): void {
    if (!this.failure) this.failure = err;
    for (const waiter of this.waiters.splice(0)) waiter.reject(err);
  }

  /** Waits for running steps, then closes the file. */
  async close(): Promise<void> {
    await this.exclusive(async () => {
      if (this.pending.length > 0 && !this.failure) await this.flush();
      await this.file.close();
    });
  }

  private async flush(): Promise<void> {
    this.flushQueued = false;
    if (this.failure) return;
    const { frames, seq } = this.takePending();
    if (frames.length === 0) return;
    try {
      const bytes = frames.reduce((sum, frame) => sum + frame.length, 0);
      const data = frames.length === 1 ? frames[0] : Buffer.concat(frames, bytes);
      // A short write would leave a torn record; loop until all of it is in.
      let written = 0;
      while (written < data.length) {
        const { bytesWritten } = await this.file.write(data, written, data.length - written);
        written += bytesWritten;
      }
      await this.file.datasync();
      this.stats.syncs++;
      this.stats.bytes += bytes;
    } catch (err) {
      this.fail(err as Error);
      return;
    }
    this.markDurable(seq);
  }

  private markDurable(seq: number): void {
    this.durableSeq = Math.max(this.durableSeq, seq);
    const still: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (waiter.seq <= this.durableSeq) waiter.resolve();
      else still.push(waiter);
    }
    this.waiters = still;
  }
}
