import type { Connection } from 'mongoose';
import { SCOPES, countersOf, type Scope, type VersionView } from './scopes';
import { readFingerprintsBounded } from './content-fingerprints';
import { readVersions } from './versions-document';

export interface VersionClockOptions {
  connection: Connection;
  /** CACHE_MAX_AGE_MS: how often the content of the mutable collections is checked; 0: never cached. */
  maxAgeMs: number;
  now?: () => number;
}

interface Waiting {
  resolve(view: VersionView): void;
  reject(error: unknown): void;
}

/**
 * Tells each request the versions of the data as of its arrival, which every cache compares with
 * what it holds. A scope's version moves when its counter moves (versions-document.ts) or when
 * its content changed without the counter moving (a write by another tool, found by the content
 * check below). Versions are this instance's own numbers: one per distinct (counter, content
 * generation) a scope has shown it, rising in the order views were made.
 *
 * The counters live in the database, so every instance on it sees every write made through the
 * gateway, its CLIs or another instance. A request needs counters read after it arrived, not a
 * read of its own: arriving requests wait for the next read, sent on the next turn of the event
 * loop, and every request that arrived before it was sent shares it. Under load that is one small
 * `find` per loop turn, not per request.
 *
 * The content check: once per CACHE_MAX_AGE_MS window in which requests arrive, a digest of each
 * mutable collection is read in the background (content-fingerprints.ts); a scope whose digest
 * differs from the previous check gets a new version. So a write made straight into the database
 * is seen within one window and the check's read, while caches of unchanged data live on across
 * windows: expiring them all at each window would recompute every answer at once.
 */
export class VersionClock {
  /** Who waits for the read not sent yet. */
  private next: Waiting[] | null = null;

  private readonly now: () => number;

  /** The counters and content generations the last view was made of, and that view. */
  private last:
    | { counters: Record<Scope, number>; generations: Record<Scope, number>; view: VersionView }
    | undefined;

  /** The last version handed out, over all scopes and views. */
  private stamp = 0;

  /** Per scope, how many content changes the checks have found. */
  private readonly generations = countersOf(undefined);

  /** The digests of the last finished content check. */
  private fingerprints: Record<Scope, string> | undefined;

  /** The window the last content check was started in; -1: none yet. */
  private checkedWindow = -1;

  /** The content check under way, if any. */
  private checking: Promise<void> = Promise.resolve();

  /** When this clock started: windows are counted from it. */
  private readonly started: number;

  constructor(private readonly options: VersionClockOptions) {
    this.now = options.now ?? Date.now;
    this.started = this.now();
  }

  /** The view as of now: counters read after this call. */
  view(): Promise<VersionView> {
    this.checkContentIfDue();
    return new Promise((resolve, reject) => {
      // Not sent yet: whoever joins it arrived before it is sent, so it reads after their arrival.
      if (this.next !== null) {
        this.next.push({ resolve, reject });
        return;
      }
      this.next = [{ resolve, reject }];
      setImmediate(() => this.send());
    });
  }

  /** Starts this window's content check if it has not started yet; settles once it is done. */
  checkContent(): Promise<void> {
    this.checkContentIfDue();
    return this.checking;
  }

  private window(): number {
    return Math.floor((this.now() - this.started) / this.options.maxAgeMs);
  }

  private checkContentIfDue(): void {
    if (this.options.maxAgeMs <= 0 || this.window() === this.checkedWindow) return;
    this.checkedWindow = this.window();
    this.checking = readFingerprintsBounded(this.options.connection).then(
      (digests) => {
        // The first check has nothing to compare with: anything cached before it may predate a
        // write it already sees, so every scope starts a new generation (once).
        const previous = this.fingerprints;
        this.fingerprints = digests;
        for (const scope of SCOPES)
          if (previous === undefined || digests[scope] !== previous[scope])
            this.generations[scope] += 1;
      },
      // The database is away: requests fail on their own reads; the next window checks again.
      () => undefined,
    );
  }

  /** The view of `counters` under the current generations; the last view again while neither moved. */
  private viewOf(counters: Record<Scope, number>): VersionView {
    const last = this.last;
    const same = (scope: Scope) =>
      last !== undefined &&
      last.counters[scope] === counters[scope] &&
      last.generations[scope] === this.generations[scope];
    if (last !== undefined && SCOPES.every(same)) return last.view;
    const versions = {} as Record<Scope, number>;
    for (const scope of SCOPES) versions[scope] = same(scope) ? last!.view.versions[scope] : ++this.stamp;
    const view = { id: ++this.stamp, versions };
    this.last = { counters, generations: { ...this.generations }, view };
    return view;
  }

  /** Sends the waiting read. */
  private send(): void {
    const waiting = this.next;
    if (waiting === null) return;
    this.next = null;
    readVersions(this.options.connection).then(
      (counters) => {
        const view = this.viewOf(counters);
        for (const { resolve } of waiting) resolve(view);
      },
      (error: unknown) => {
        for (const { reject } of waiting) reject(error);
      },
    );
  }
}
