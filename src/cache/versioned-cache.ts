import { DataVersions, dataVersions } from './data-versions';

/**
 * Internal: a cache of reads of mutable collections, valid while their versions stand still
 * (DataVersions). A read is kept only when no write to those collections happened while it was in
 * flight; answers are shared between requests, so callers must treat them as read-only. Bounded:
 * past `limit` entries it starts over. When versions are not watched it reads through.
 */
export class VersionedCache<V> {
  private stamp = Number.NaN;

  private readonly entries = new Map<string, V>();

  constructor(
    private readonly collections: readonly string[],
    private readonly limit = 10_000,
    private readonly versions: DataVersions = dataVersions,
  ) {}

  /** Drops the entries when the versions moved; false while versions are not watched. */
  private current(): boolean {
    if (!this.versions.enabled) return false;
    const stamp = this.versions.stamp(this.collections);
    if (stamp !== this.stamp) {
      this.entries.clear();
      this.stamp = stamp;
    }
    return true;
  }

  /** Values for `keys` in key order: cached ones as they are, the misses read in one call. */
  async getMany<K>(keys: readonly K[], keyOf: (key: K) => string, readMisses: (keys: K[]) => Promise<V[]>): Promise<V[]> {
    if (!this.current()) return readMisses([...keys]);
    const stamp = this.stamp;
    const answers = new Map<string, V>();
    const missing: K[] = [];
    const asked = new Set<string>();
    for (const key of keys) {
      const id = keyOf(key);
      if (this.entries.has(id)) answers.set(id, this.entries.get(id) as V);
      else if (!asked.has(id)) {
        asked.add(id);
        missing.push(key);
      }
    }
    if (missing.length > 0) {
      const read = await readMisses(missing);
      // Keep them only if nothing was written meanwhile (and no other read reset the entries).
      const keep = this.versions.stamp(this.collections) === stamp && this.stamp === stamp;
      if (keep && this.entries.size + missing.length > this.limit) this.entries.clear();
      missing.forEach((key, i) => {
        answers.set(keyOf(key), read[i]);
        if (keep) this.entries.set(keyOf(key), read[i]);
      });
    }
    return keys.map((key) => answers.get(keyOf(key)) as V);
  }

  /** The cached value for `key` while it is current, without reading; undefined when there is none. */
  peek(key: string): V | undefined {
    return this.current() ? this.entries.get(key) : undefined;
  }

  /** One value, read by `read` on a miss. */
  async get(key: string, read: () => Promise<V>): Promise<V> {
    // The common case, a hit, without getMany's bookkeeping (it runs for every request's member).
    if (this.current() && this.entries.has(key)) return this.entries.get(key) as V;
    const [value] = await this.getMany([key], (k) => k, async () => [await read()]);
    return value;
  }
}
