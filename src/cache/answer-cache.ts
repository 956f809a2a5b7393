import type { Principal } from '../auth/principal';
import { DataVersions, dataVersions } from './data-versions';

const DAY_MS = 86_400_000;

export interface AnswerCacheOptions {
  /** Answers kept at most (then the cache starts over). */
  maxEntries?: number;
  /** Their total size in bytes at most; one answer larger than a sixteenth of it is never kept. */
  maxBytes?: number;
  versions?: DataVersions;
  /** The clock (tests turn the day with it). */
  now?: () => number;
}

/** What an answer computed from now on is valid for; null while caching is off. */
export interface AnswerTicket {
  stamp: number;
  day: number;
}

/**
 * Whole answers of reads (REST GETs, GraphQL queries), per caller and request, kept while nothing
 * at all is written and the UTC day stays the same.
 *
 * Why this is correct: an answer is a function of the request as sent, the caller, the stored
 * data and the date (a read may default to "now": this year's targets, a time series ending in
 * the current period, whose smallest unit is a week). The key holds the first two, the stamp of
 * every collection (DataVersions) the third, the UTC day the fourth. Any write, whatever it
 * touches, drops every answer: writes are rare next to reads, and a coarser rule cannot miss a
 * dependency. An answer whose computation overlapped a write is not kept. While versions are
 * not watched (an external MONGODB_URI) nothing is kept.
 */
export class AnswerCache<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();

  private bytes = 0;

  private stamp = Number.NaN;

  private day = Number.NaN;

  private readonly maxEntries: number;

  private readonly maxBytes: number;

  private readonly versions: DataVersions;

  private readonly now: () => number;

  constructor(options: AnswerCacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? 5_000;
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.versions = options.versions ?? dataVersions;
    this.now = options.now ?? Date.now;
  }

  /** Call before computing an answer that may be kept; pass the ticket to `keep`. */
  begin(): AnswerTicket | null {
    if (!this.versions.enabled) return null;
    return { stamp: this.versions.stampAll(), day: Math.floor(this.now() / DAY_MS) };
  }

  get(key: string): V | undefined {
    if (!this.versions.enabled) return undefined;
    this.dropIfStale();
    return this.entries.get(key)?.value;
  }

  /**
   * Keeps an answer computed since `ticket` was taken, unless a write landed or the day turned
   * meanwhile. `bytes`: its size, key included (a key may hold a whole query text).
   */
  keep(key: string, value: V, bytes: number, ticket: AnswerTicket | null): void {
    if (ticket === null) return;
    this.dropIfStale();
    if (ticket.stamp !== this.stamp || ticket.day !== this.day) return;
    if (bytes > this.maxBytes / 16) return;
    if (this.entries.size >= this.maxEntries || this.bytes + bytes > this.maxBytes) this.clear();
    const previous = this.entries.get(key);
    if (previous) this.bytes -= previous.bytes;
    this.entries.set(key, { value, bytes });
    this.bytes += bytes;
  }

  get size(): number {
    return this.entries.size;
  }

  private dropIfStale(): void {
    const stamp = this.versions.stampAll();
    const day = Math.floor(this.now() / DAY_MS);
    if (stamp === this.stamp && day === this.day) return;
    this.clear();
    this.stamp = stamp;
    this.day = day;
  }

  private clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}

/**
 * The caller part of an answer's key: everything about the principal the services decide on.
 * (Role and team also come from the member document, whose writes drop every answer anyway.)
 */
export function callerKey(principal: Principal | null): string {
  return principal === null ? 'anonymous' : `${principal.subject}\u0001${principal.role}\u0001${principal.teamId ?? ''}`;
}
