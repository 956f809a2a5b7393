import type { Document } from 'bson';
import type { Catalog } from './catalog';
import type { Collection } from './collection';
import { valuesAtPath } from './document-paths';
import type { Index } from './index';

/** mongod's default pause between two TTL passes (its `ttlMonitorSleepSecs`). */
export const DEFAULT_TTL_MONITOR_SLEEP_SECS = 60;

/**
 * mongod's TTL monitor: every `sleepSecs`, a pass deletes the documents a TTL index
 * (single-field, `expireAfterSeconds`) says have expired: the indexed field holds a date (the
 * earliest one, in an array) older than `expireAfterSeconds`. Other values never expire.
 * Deletions are ordinary journaled commits. The timer never keeps the process alive.
 */
export class TtlMonitor {
  private timer: NodeJS.Timeout | null = null;
  private period = DEFAULT_TTL_MONITOR_SLEEP_SECS;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly catalog: Catalog,
    sleepSecs = DEFAULT_TTL_MONITOR_SLEEP_SECS,
  ) {
    this.sleepSecs = sleepSecs;
  }

  get sleepSecs(): number {
    return this.period;
  }

  /** A new period starts counting now, as mongod's monitor wakes when the parameter changes. */
  set sleepSecs(sleepSecs: number) {
    if (!(sleepSecs > 0) || !Number.isFinite(sleepSecs))
      throw new RangeError(
        `ttlMonitorSleepSecs must be a positive number of seconds, got ${sleepSecs}`,
      );
    this.period = sleepSecs;
    if (this.timer) clearInterval(this.timer);
    if (this.stopped) return;
    this.timer = setInterval(() => void this.pass(), sleepSecs * 1000);
    this.timer.unref();
  }

  /** One pass over every collection; a pass still running is not started twice. */
  pass(): Promise<void> {
    this.running ??= this.expire().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Stops the timer and waits for a pass under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  private async expire(): Promise<void> {
    const now = Date.now();
    const commits: Array<Promise<void>> = [];
    for (const db of this.catalog.databaseNames()) {
      for (const coll of this.catalog.collections(db)) {
        const ids = expiredIds(coll, now);
        if (ids.length) commits.push(this.catalog.commit([{ op: 'delete', ns: coll.ns, ids }]));
      }
    }
    // A journal failure already stops every write and is reported to writers; the monitor just
    // tries again next time, as mongod's does after a failed pass.
    await Promise.all(commits.map((c) => c.catch(() => undefined)));
  }
}

function expiredIds(coll: Collection, now: number): unknown[] {
  const ttl = [...coll.secondaryIndexes()].filter(isTtlIndex);
  if (ttl.length === 0) return [];
  const ids: unknown[] = [];
  for (const doc of coll.docs.values()) {
    if (ttl.some((index) => hasExpired(index, doc, now))) ids.push(doc._id);
  }
  return ids;
}

function isTtlIndex(index: Index): boolean {
  const seconds = index.spec.expireAfterSeconds;
  return typeof seconds === 'number' && Number.isFinite(seconds) && index.fields.length === 1;
}

function hasExpired(index: Index, doc: Document, now: number): boolean {
  // A document a partial or sparse index leaves out is not in the index, so not expired by it.
  if (index.keysFor(doc).length === 0) return false;
  let earliest = Infinity;
  for (const v of valuesAtPath(doc, index.fields[0])) {
    if (v instanceof Date && v.getTime() < earliest) earliest = v.getTime();
  }
  return earliest + (index.spec.expireAfterSeconds as number) * 1000 < now;
}
