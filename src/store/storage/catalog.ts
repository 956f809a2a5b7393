import type { Document } from 'bson';
import { Collection, ID_INDEX_NAME } from './collection';
import type { IndexSpec } from './index-spec';
import type { Journal } from './journal';
import { UnreachableCaseError, type LoadedMutation, type Mutation } from './mutation';
import { splitNamespace } from './namespace';
import { StoreError } from '../errors';

/** Least log size after which a commit triggers compaction into a snapshot. */
export const COMPACTION_THRESHOLD_BYTES = 16 * 1024 * 1024;
/**
 * Beyond the least size, the log is compacted once it reaches this fraction of the snapshot.
 * Compacting rewrites the whole state, so with a fixed threshold a growing database would
 * rewrite itself ever more often per byte written (quadratic in total); against a fraction of
 * its own size, each byte of log pays for at most 1/fraction bytes of snapshot, and the data
 * directory and the replay at start stay within (1 + fraction) × the state.
 */
export const COMPACTION_LOG_FRACTION = 0.5;
/**
 * At a clean close, a log at least this big is folded into a snapshot: the data directory at
 * rest is then the state itself, and the next start reads it rather than replaying every write
 * since the last compaction (up to half the state, or 16 MB). Below it, closing stays instant.
 */
export const CLOSE_COMPACTION_MIN_BYTES = 1024 * 1024;
const SNAPSHOT_BATCH = 1000;

/**
 * Databases → collections → documents and indexes. The only way state changes is `commit`
 * (live) or `open` (replay), both through `apply`, so recovery cannot diverge from the live path.
 */
export class Catalog {
  private readonly dbs = new Map<string, Map<string, Collection>>();
  /** True while `open` replays the journal: collections then defer their secondary indexes. */
  private loading = false;
  private compacting: Promise<void> | null = null;
  /** Set when the journal failed: memory may be ahead of disk, so no further write is accepted. */
  private journalFailure: Error | null = null;

  private constructor(
    private readonly journal: Journal,
    private readonly compactionThreshold: number,
  ) {}

  /**
   * Opens the journal and rebuilds the state by applying every mutation it returns, then builds
   * the secondary indexes once over the documents that remain. Documents the journal hands over
   * as BSON stay so until their collection is first read (Collection).
   */
  static async open(
    journal: Journal,
    options: { compactionThreshold?: number } = {},
  ): Promise<Catalog> {
    const catalog = new Catalog(journal, options.compactionThreshold ?? COMPACTION_THRESHOLD_BYTES);
    const load = (m: LoadedMutation): void => catalog.load(m);
    catalog.loading = true;
    try {
      for (const m of await journal.open(load)) load(m);
    } finally {
      catalog.loading = false;
    }
    for (const colls of catalog.dbs.values())
      for (const coll of colls.values()) coll.buildIndexes();
    return catalog;
  }

  /**
   * Applies a validated batch in memory at once (synchronously: the next command already sees
   * it), appends it to the journal as one record, and resolves once the journal has synced.
   * Callers reply only after this resolves.
   */
  commit(batch: Mutation[]): Promise<void> {
    if (this.journalFailure) {
      return Promise.reject(
        new StoreError(
          'OperationFailed',
          `the journal failed earlier, writes are refused until restart: ${this.journalFailure.message}`,
        ),
      );
    }
    if (batch.length === 0) return Promise.resolve();
    for (const m of batch) this.apply(m);
    try {
      this.journal.append(batch);
    } catch (err) {
      return Promise.reject(this.fail(err));
    }
    return this.journal.sync().then(
      () => this.maybeCompact(),
      (err: unknown) => {
        throw this.fail(err);
      },
    );
  }

  // Like mongod's fassert on a journal error, minus the crash: the state in memory may include a
  // batch that is not on disk, so acknowledging any later write would be a lie.
  private fail(err: unknown): StoreError {
    this.journalFailure ??= err instanceof Error ? err : new Error(String(err));
    return new StoreError(
      'OperationFailed',
      `journal write failed: ${this.journalFailure.message}`,
    );
  }

  private load(m: LoadedMutation): void {
    if (!('encoded' in m)) return this.apply(m);
    const [db, name] = splitNamespace(m.ns);
    // As apply does: an insert creates its collection, a replace needs it to exist.
    const coll =
      m.op === 'insert' ? this.ensureCollection(db, name, {}) : this.collection(db, name);
    coll?.storeEncoded(m.op, m.encoded);
  }

  apply(m: Mutation): void {
    switch (m.op) {
      case 'createCollection': {
        const [db, name] = splitNamespace(m.ns);
        this.ensureCollection(db, name, m.options);
        return;
      }
      case 'setCollectionOptions': {
        const [db, name] = splitNamespace(m.ns);
        const coll = this.dbs.get(db)?.get(name);
        if (coll) coll.options = m.options;
        return;
      }
      case 'dropCollection': {
        const [db, name] = splitNamespace(m.ns);
        this.dbs.get(db)?.delete(name);
        return;
      }
      case 'dropDatabase':
        this.dbs.delete(m.db);
        return;
      case 'renameCollection': {
        const [fromDb, fromName] = splitNamespace(m.from);
        const [toDb, toName] = splitNamespace(m.to);
        const source = this.dbs.get(fromDb)?.get(fromName);
        if (!source) return;
        this.dbs.get(fromDb)!.delete(fromName);
        const target = this.newCollection(toDb, toName, source.options);
        for (const index of source.indexes.values()) {
          if (index.name !== ID_INDEX_NAME) target.addIndex(index.spec);
        }
        target.insert([...source.docs.values()]);
        this.databaseMap(toDb).set(toName, target);
        return;
      }
      case 'createIndexes': {
        const [db, name] = splitNamespace(m.ns);
        const coll = this.ensureCollection(db, name, {});
        for (const spec of m.specs) coll.addIndex(spec as IndexSpec);
        return;
      }
      case 'dropIndexes': {
        const [db, name] = splitNamespace(m.ns);
        const coll = this.dbs.get(db)?.get(name);
        for (const index of m.names) coll?.dropIndex(index);
        return;
      }
      case 'updateIndexSpec': {
        const [db, name] = splitNamespace(m.ns);
        this.dbs
          .get(db)
          ?.get(name)
          ?.updateIndexSpec(m.spec as IndexSpec);
        return;
      }
      case 'insert': {
        const [db, name] = splitNamespace(m.ns);
        this.ensureCollection(db, name, {}).insert(m.docs);
        return;
      }
      case 'replace': {
        const [db, name] = splitNamespace(m.ns);
        this.dbs.get(db)?.get(name)?.replace(m.docs);
        return;
      }
      case 'delete': {
        const [db, name] = splitNamespace(m.ns);
        this.dbs.get(db)?.get(name)?.delete(m.ids);
        return;
      }
      default:
        throw new UnreachableCaseError(m);
    }
  }

  /**
   * Mutations that recreate the current state: the content of a compaction snapshot. A collection
   * loaded and never read gives its documents as the BSON they were read as.
   */
  *snapshotMutations(): Iterable<LoadedMutation> {
    for (const colls of this.dbs.values()) {
      for (const coll of colls.values()) {
        yield { op: 'createCollection', ns: coll.ns, options: coll.options };
        const specs = [...coll.secondaryIndexes()].map((i) => i.spec as Document);
        if (specs.length) yield { op: 'createIndexes', ns: coll.ns, specs };
        const encoded = coll.encodedInserts();
        if (encoded) {
          for (const part of encoded) yield { op: 'insert', ns: coll.ns, encoded: part };
          continue;
        }
        let docs: Document[] = [];
        for (const doc of coll.docs.values()) {
          docs.push(doc);
          if (docs.length === SNAPSHOT_BATCH) {
            yield { op: 'insert', ns: coll.ns, docs };
            docs = [];
          }
        }
        if (docs.length) yield { op: 'insert', ns: coll.ns, docs };
      }
    }
  }

  collection(db: string, name: string): Collection | undefined {
    return this.dbs.get(db)?.get(name);
  }

  collections(db: string): Collection[] {
    return [...(this.dbs.get(db)?.values() ?? [])];
  }

  /** Databases holding at least one collection (an empty database does not exist in mongod). */
  databaseNames(): string[] {
    return [...this.dbs.entries()].filter(([, c]) => c.size > 0).map(([name]) => name);
  }

  /** Waits for a running compaction, folds a log of CLOSE_COMPACTION_MIN_BYTES or more into a snapshot, then closes the journal. */
  async close(): Promise<void> {
    if (this.compacting) await this.compacting.catch(() => undefined);
    if (this.journalFailure === null && this.journal.logBytes >= CLOSE_COMPACTION_MIN_BYTES) {
      // A failure leaves the log as it was, still valid: the next start replays it.
      await this.journal
        .compact(() => this.snapshotMutations())
        .catch((err: unknown) => {
          process.emitWarning(
            `embedded store: compaction at close failed: ${(err as Error).message}`,
          );
        });
    }
    await this.journal.close();
  }

  private maybeCompact(): void {
    const threshold = Math.max(
      this.compactionThreshold,
      (this.journal.snapshotBytes ?? 0) * COMPACTION_LOG_FRACTION,
    );
    if (this.compacting || this.journal.logBytes < threshold) return;
    // Compaction runs beside further commits; a failure leaves the log as it was (still valid).
    this.compacting = this.journal
      .compact(() => this.snapshotMutations())
      .catch((err: unknown) => {
        process.emitWarning(`embedded store: compaction failed: ${(err as Error).message}`);
      })
      .finally(() => {
        this.compacting = null;
      });
  }

  private databaseMap(db: string): Map<string, Collection> {
    let colls = this.dbs.get(db);
    if (!colls) this.dbs.set(db, (colls = new Map()));
    return colls;
  }

  private ensureCollection(db: string, name: string, options: Document): Collection {
    const colls = this.databaseMap(db);
    let coll = colls.get(name);
    if (!coll) colls.set(name, (coll = this.newCollection(db, name, options)));
    return coll;
  }

  private newCollection(db: string, name: string, options: Document): Collection {
    const coll = new Collection(db, name, options);
    if (this.loading) coll.deferIndexes();
    return coll;
  }
}
