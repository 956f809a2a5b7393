import type { Connection } from 'mongoose';
import type { EmbeddedMongoServer } from '../store/server';
import { SCOPES, countersOf, type Scope, type VersionView } from './scopes';
import { VERSIONS_COLLECTION, VERSIONS_ID, readVersions } from './versions-document';

export interface VersionClockOptions {
  connection: Connection;
  /** The database name the gateway uses (where the versions document lives). */
  dbName: string;
  /** The embedded server when it runs in this process: the counters are then read from its memory. */
  embedded: EmbeddedMongoServer | null;
  /** CACHE_MAX_AGE_MS: the longest a cached read of mutable data is used; 0: never cached. */
  maxAgeMs: number;
  now?: () => number;
}

interface Waiting {
  read: Promise<Record<Scope, number>>;
  settle: { resolve: (counters: Record<Scope, number>) => void; reject: (error: unknown) => void };
}

/**
 * Tells each request the version counters as of its arrival (versions-document.ts), which every
 * cache compares with what it holds. The counters live in the database, so every instance on it
 * sees every write made through the gateway, its CLIs or another instance.
 *
 * Why one round trip per request is not paid in full: a request needs counters read after it
 * arrived, not a read of its own. Arriving requests wait for the next read, sent on the next turn
 * of the event loop; every request that arrived before it was sent shares it. Under load that is
 * one small `find` per loop turn, not per request. (Sending the next read only once the one
 * under way is back sends fewer, but a request then waits one and a half round trips on average
 * instead of one, which costs more throughput than the extra reads.) With the
 * embedded server in process the counters are read from its memory, without a round trip.
 */
export class VersionClock {
  /** The read the next requests wait for, not sent yet. */
  private next: Waiting | null = null;

  private readonly now: () => number;

  /** The last view read from the embedded server's memory. */
  private lastView: VersionView | undefined;

  constructor(private readonly options: VersionClockOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The view as of now without waiting, where the counters are in this process; undefined otherwise. */
  viewNow(): VersionView | undefined {
    const { embedded } = this.options;
    if (embedded === null) return undefined;
    const stored = embedded.peekDocument(this.options.dbName, VERSIONS_COLLECTION, VERSIONS_ID);
    // Every request asks: while nothing was written, the same view is handed out again.
    const last = this.lastView;
    if (last !== undefined && last.epoch === this.epochNow() && SCOPES.every((scope) => last.versions[scope] === (stored?.[scope] ?? 0))) return last;
    this.lastView = this.viewOf(countersOf(stored));
    return this.lastView;
  }

  /** The view as of now: counters read after this call. */
  async view(): Promise<VersionView> {
    return this.viewNow() ?? this.viewOf(await this.sharedRead());
  }

  private epochNow(): number {
    const { maxAgeMs } = this.options;
    return maxAgeMs > 0 ? Math.floor(this.now() / maxAgeMs) : 0;
  }

  private viewOf(versions: Record<Scope, number>): VersionView {
    return { versions, epoch: this.epochNow() };
  }

  private sharedRead(): Promise<Record<Scope, number>> {
    // Not sent yet: whoever joins it arrived before it is sent, so it reads after their arrival.
    if (this.next) return this.next.read;
    let settle!: Waiting['settle'];
    const read = new Promise<Record<Scope, number>>((resolve, reject) => {
      settle = { resolve, reject };
    });
    this.next = { read, settle };
    setImmediate(() => this.send());
    return read;
  }

  /** Sends the waiting read. */
  private send(): void {
    const waiting = this.next;
    if (waiting === null) return;
    this.next = null;
    readVersions(this.options.connection).then(waiting.settle.resolve, waiting.settle.reject);
  }
}
