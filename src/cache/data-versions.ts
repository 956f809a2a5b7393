import type { EmbeddedMongoServer } from '../store/server';

/** Commands that never change data: everything else counts as a write (unknown ones too). */
const READ_ONLY = new Set([
  'find', 'getMore', 'count', 'distinct', 'hello', 'isMaster', 'ismaster', 'ping', 'buildInfo', 'buildinfo',
  'listCollections', 'listIndexes', 'listDatabases', 'killCursors', 'endSessions', 'collStats', 'dbStats',
  'serverStatus', 'getParameter', 'connectionStatus', 'whatsmyuri', 'createIndexes', 'saslStart', 'saslContinue',
]);

/** Writes that name the one collection they change as the command's value. */
const COLLECTION_WRITES = new Set(['insert', 'update', 'delete', 'findAndModify', 'findandmodify', 'create']);

/**
 * Versions of the database's collections, as seen by this process: every write the embedded
 * server receives bumps the version of the collection it names (or of everything, for writes
 * that are not about one collection). Caches of mutable data stamp what they keep with these
 * versions and drop it when a version moves.
 *
 * Why this is enough: the embedded server runs in this process and applies a write in the same
 * tick it receives it (`Catalog.commit` applies synchronously, then syncs the journal), so a
 * read issued after the bump sees the write, and a read that was in flight across the bump is
 * not kept (see VersionedCache). With an external `MONGODB_URI` other processes may write
 * unseen, so nothing watches, `enabled` is false and the caches read through every time.
 */
export class DataVersions {
  private readonly versions = new Map<string, number>();

  private epoch = 0;

  /** Every bump counted, whatever it was about: a stamp of the whole database. */
  private writes = 0;

  private watchers = 0;

  /** True while some embedded server is watched: caching is then safe. */
  get enabled(): boolean {
    return this.watchers > 0;
  }

  /** A number that changes whenever any of these collections (or the whole database) is written. */
  stamp(collections: readonly string[]): number {
    let sum = this.epoch;
    for (const name of collections) sum += this.versions.get(name) ?? 0;
    return sum;
  }

  /** A number that changes whenever anything at all is written. */
  stampAll(): number {
    return this.writes;
  }

  /** Records a write to `collection`, or to everything when it is null. */
  bump(collection: string | null): void {
    this.writes += 1;
    if (collection === null) this.epoch += 1;
    else this.versions.set(collection, (this.versions.get(collection) ?? 0) + 1);
  }

  /** Watches every command the server receives (from any client); returns the way to stop. */
  watch(server: EmbeddedMongoServer): () => void {
    const listener = (name: string, _db: string, body: Record<string, unknown>) => {
      if (READ_ONLY.has(name) || (name === 'aggregate' && !writesOut(body))) return;
      const target = body[name];
      this.bump(COLLECTION_WRITES.has(name) && typeof target === 'string' ? target : null);
    };
    server.on('command', listener);
    this.watchers += 1;
    this.bump(null); // whatever was cached before belongs to another database
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      server.off('command', listener);
      this.watchers -= 1;
      this.bump(null);
    };
  }
}

function writesOut(body: Record<string, unknown>): boolean {
  const stages = body.pipeline;
  return Array.isArray(stages) && stages.some((stage) => stage !== null && typeof stage === 'object' && ('$out' in stage || '$merge' in stage));
}

/** The process-wide versions (mongoose models share one default connection, so one database). */
export const dataVersions = new DataVersions();
