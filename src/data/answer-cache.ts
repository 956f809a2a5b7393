import type { Principal } from '../auth/principal';
import type { RequestData } from './request-data';
import { SCOPES, type Scope, type VersionView } from './scopes';

const DAY_MS = 86_400_000;

export interface AnswerCacheOptions {
  /** Answers kept at most (then the cache starts over). */
  maxEntries?: number;
  /** Their total size in bytes at most; one answer larger than a sixteenth of it is never kept. */
  maxBytes?: number;
  /** False: nothing is kept (CACHE_MAX_AGE_MS=0). */
  enabled?: boolean;
  /** The clock (tests turn the day with it). */
  now?: () => number;
}

interface Entry<V> {
  value: V;
  bytes: number;
  /** The version of each scope the answer read, in SCOPES order; -1 for scopes it did not read. */
  versions: number[];
  day: number;
}

/**
 * Whole answers of reads (REST GETs, GraphQL queries), per caller and request, each kept while
 * the scopes it read keep their versions and the UTC day stays the same.
 *
 * Why this is correct: an answer is a function of the request as sent, the caller, the stored
 * data it read and the date (a read may default to "now": this year's targets, a time series
 * ending in the current period, whose smallest unit is a week). The key holds the first two; the
 * versions of the scopes the computation read (RequestData, read-tracking.ts), as of the
 * request's arrival, the third; the UTC day the fourth. A write to a scope the answer did not
 * read cannot change it, so it stays kept: a settings write leaves `GET /pipelines` alone.
 * Committed snapshots never change, so reading one adds no scope.
 */
export class AnswerCache<V> {
  private readonly entries = new Map<string, Entry<V>>();

  private bytes = 0;

  private readonly maxEntries: number;

  private readonly maxBytes: number;

  private readonly enabled: boolean;

  private readonly now: () => number;

  constructor(options: AnswerCacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? 5_000;
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.enabled = options.enabled ?? true;
    this.now = options.now ?? Date.now;
  }

  /** The answer kept for `key` that is valid under `view`, if any. */
  get(key: string, view: VersionView): V | undefined {
    if (!this.enabled) return undefined;
    const entry = this.entries.get(key);
    if (entry === undefined || entry.day !== this.today()) return undefined;
    for (let i = 0; i < SCOPES.length; i += 1) {
      const version = entry.versions[i];
      if (version !== -1 && version !== view.versions[SCOPES[i]]) return undefined;
    }
    return entry.value;
  }

  /**
   * Keeps an answer computed for a request whose view and reads are `data`. `bytes`: its size,
   * key included (a key may hold a whole query text).
   */
  keep(key: string, value: V, bytes: number, data: RequestData): void {
    const view = data.view;
    if (!this.enabled || view === undefined || !data.keepable || bytes > this.maxBytes / 16) return;
    const day = this.today();
    const versions = SCOPES.map((scope: Scope) => (data.hasRead(scope) ? view.versions[scope] : -1));
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.bytes -= previous.bytes;
    }
    if (this.entries.size >= this.maxEntries || this.bytes + bytes > this.maxBytes) this.clear();
    this.entries.set(key, { value, bytes, versions, day });
    this.bytes += bytes;
  }

  get size(): number {
    return this.entries.size;
  }

  private today(): number {
    return Math.floor(this.now() / DAY_MS);
  }

  private clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}

/**
 * The caller part of an answer's key: everything about the principal the services decide on.
 * (Role and team come from the member document: reading it makes `members` one of the scopes.)
 */
export function callerKey(principal: Principal | null): string {
  return principal === null ? 'anonymous' : `${principal.subject}\u0001${principal.role}\u0001${principal.teamId ?? ''}`;
}
