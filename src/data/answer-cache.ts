import { LRUCache } from 'lru-cache';
import type { Principal } from '../auth/principal';
import { CacheStats } from './cache-stats';
import type { VersionView } from './scopes';

const DAY_MS = 86_400_000;

export interface AnswerCacheOptions {
  /** The answers' total size in bytes at most, keys included; the least recently used go first. */
  maxBytes?: number;
  /** False: nothing is kept (CACHE_MAX_AGE_MS=0). */
  enabled?: boolean;
  /** The clock (tests turn the day with it). */
  now?: () => number;
}

interface Entry<V> {
  value: V;
  bytes: number;
  /** The id of the view the answer was computed under (VersionView.id). */
  viewId: number;
  day: number;
}

/**
 * Whole answers of reads (REST GETs, GraphQL queries), per caller and request, each kept while no
 * mutable scope has moved since it was computed and the UTC day stays the same.
 *
 * Why this is correct: an answer is a function of the request as sent, the caller, the stored
 * data and the date (a read may default to "now": this year's targets, a time series ending in
 * the current period, whose smallest unit is a week). The key holds the first two; the versions
 * of every mutable scope as of the request's arrival (VersionClock) the third, coarsely: any
 * write to any scope drops every answer, which nothing can forget to declare; the UTC day the
 * fourth. Committed snapshots never change, so reading one adds nothing.
 */
export class AnswerCache<V> {
  private readonly entries: LRUCache<string, Entry<V>> | undefined;

  private readonly now: () => number;

  /** Lookups that found a valid answer, and those that did not (none counted when disabled). */
  readonly stats = new CacheStats();

  constructor(options: AnswerCacheOptions = {}) {
    const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.entries =
      options.enabled === false
        ? undefined
        : new LRUCache<string, Entry<V>>({
            maxSize: maxBytes,
            // One answer larger than a sixteenth of the budget would push out too many others.
            maxEntrySize: Math.floor(maxBytes / 16),
            sizeCalculation: (entry) => entry.bytes,
          });
    this.now = options.now ?? Date.now;
  }

  /** The answer kept for `key` that is valid under `view`, if any. */
  get(key: string, view: VersionView): V | undefined {
    if (this.entries === undefined) return undefined;
    const entry = this.entries.get(key);
    if (entry === undefined || entry.viewId !== view.id || entry.day !== this.today()) {
      this.stats.miss();
      return undefined;
    }
    this.stats.hit();
    return entry.value;
  }

  /** Keeps an answer computed under `view`. `bytes`: its size, key included. */
  keep(key: string, value: V, bytes: number, view: VersionView): void {
    if (this.entries === undefined || bytes > this.entries.maxEntrySize) return;
    this.entries.set(key, { value, bytes: Math.max(1, bytes), viewId: view.id, day: this.today() });
  }

  get size(): number {
    return this.entries?.size ?? 0;
  }

  private today(): number {
    return Math.floor(this.now() / DAY_MS);
  }
}

/**
 * The caller part of an answer's key: everything about the principal the services decide on.
 * (Role and team come from the member document, whose scope is in the view.)
 */
export function callerKey(principal: Principal | null): string {
  return principal === null
    ? 'anonymous'
    : `${principal.subject}\u0001${principal.role}\u0001${principal.teamId ?? ''}`;
}

/** A REST answer kept serialised: sent as it is. */
export interface KeptRestAnswer {
  status: number;
  body: Buffer;
}

/** A GraphQL query's answer kept: its `data`, which Apollo serialises as any result. */
export interface KeptGraphQLAnswer {
  data: Record<string, unknown>;
}
