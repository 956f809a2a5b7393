import type { RequestData } from './request-data';
import type { Scope } from './scopes';

/**
 * Reads of one mutable scope, kept while its version stands still (VersionClock). A request sees
 * the entries only when its view is the one they were read under; a request with a newer view
 * starts them over, one with an older view (it arrived before a write another request has already
 * seen) reads through. A read is kept only if no newer view arrived while it was in flight.
 * Answers are shared between requests: callers treat them as read-only. Bounded: past `limit`
 * entries it starts over.
 */
export class VersionedCache<V> {
  private version = -1;

  private readonly entries = new Map<string, V>();

  /** Reads under way by `get`, by key, with the version they were started under. */
  private readonly reading = new Map<string, { version: number; value: Promise<V> }>();

  constructor(
    readonly scope: Scope,
    private readonly limit = 10_000,
    private readonly enabled = true,
  ) {}

  /** Whether the entries belong to `data`'s view, starting them over for a newer one. */
  private async current(data: RequestData): Promise<boolean> {
    const view = await data.ensureView();
    if (!this.enabled) return false;
    const version = view.versions[this.scope];
    if (version === this.version) return true;
    if (version > this.version) {
      this.entries.clear();
      this.reading.clear();
      this.version = version;
      return true;
    }
    return false;
  }

  /** Values for `keys` in key order: cached ones as they are, the misses read in one call. */
  async getMany<K>(
    data: RequestData,
    keys: readonly K[],
    keyOf: (key: K) => string,
    readMisses: (keys: K[]) => Promise<V[]>,
  ): Promise<V[]> {
    if (!(await this.current(data))) return readMisses([...keys]);
    const { version } = this;
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
      const keep = this.version === version;
      if (keep && this.entries.size + missing.length > this.limit) this.entries.clear();
      missing.forEach((key, i) => {
        answers.set(keyOf(key), read[i]);
        if (keep) this.entries.set(keyOf(key), read[i]);
      });
    }
    return keys.map((key) => answers.get(keyOf(key)) as V);
  }

  /**
   * One value, read by `read` on a miss. Requests missing the same key under the same version
   * share one read: after a write, every request in flight would otherwise read it again.
   */
  async get(data: RequestData, key: string, read: () => Promise<V>): Promise<V> {
    if (!(await this.current(data))) return read();
    if (this.entries.has(key)) return this.entries.get(key) as V;
    const pending = this.reading.get(key);
    if (pending !== undefined && pending.version === this.version) return pending.value;
    const value = this.getMany(data, [key], (k) => k, async () => [await read()]).then(
      ([first]) => first,
    );
    const entry = { version: this.version, value };
    this.reading.set(key, entry);
    const forget = () => {
      if (this.reading.get(key) === entry) this.reading.delete(key);
    };
    value.then(forget, forget);
    return value;
  }
}
