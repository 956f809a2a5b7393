import type { Document } from 'bson';
import { canonicalKey } from './canonical-key';
import { Index } from './index';
import type { IndexSpec } from './index-spec';
import { StringPool } from './string-pool';

export const ID_INDEX_NAME = '_id_';

/**
 * One collection in memory: documents by canonical `_id` key (a Map keeps insertion order,
 * which serves as natural order) and its indexes. Only the catalog's `apply` calls the
 * mutating methods; commands read.
 */
export class Collection {
  readonly docs = new Map<string, Document>();
  readonly indexes = new Map<string, Index>();
  private readonly strings = new StringPool();
  /**
   * While a data directory loads, secondary indexes are left empty and built in one pass at the
   * end (`buildIndexes`): a document the log later replaces or deletes is never indexed, and each
   * index is filled on its own rather than every index touched per document.
   */
  private indexesDeferred = false;

  constructor(
    readonly db: string,
    public name: string,
    public options: Document,
  ) {
    // The _id index is the docs map itself; the Index object only describes it.
    this.indexes.set(ID_INDEX_NAME, new Index({ v: 2, key: { _id: 1 }, name: ID_INDEX_NAME }));
  }

  get ns(): string {
    return `${this.db}.${this.name}`;
  }

  /** Secondary indexes (all but `_id_`), the ones that need maintenance. */
  *secondaryIndexes(): Iterable<Index> {
    for (const index of this.indexes.values()) if (index.name !== ID_INDEX_NAME) yield index;
  }

  getById(id: unknown): Document | undefined {
    return this.docs.get(canonicalKey(id));
  }

  /** Stores documents, replacing any with the same `_id` (replay after a torn compaction must not double-index). */
  insert(docs: Document[]): void {
    this.store(docs);
  }

  replace(docs: Document[]): void {
    this.store(docs);
  }

  delete(ids: unknown[]): void {
    for (const raw of ids) {
      const id = canonicalKey(raw);
      if (this.indexesDeferred) {
        this.docs.delete(id);
        continue;
      }
      const old = this.docs.get(id);
      if (!old) continue;
      this.unindex(id, old);
      this.docs.delete(id);
    }
  }

  addIndex(spec: IndexSpec): void {
    if (this.indexes.has(spec.name)) return;
    const index = new Index(spec);
    if (!this.indexesDeferred) index.fill(this.docs);
    this.indexes.set(spec.name, index);
  }

  /** From now until `buildIndexes`, writes leave the secondary indexes alone (loading only). */
  deferIndexes(): void {
    this.indexesDeferred = true;
  }

  /**
   * Ends the deferral: each secondary index is filled from the documents when it is first used (a
   * query planned on it, a write to the collection), not now. Opening a data directory then costs
   * decoding its documents, and an index nothing uses since the start costs nothing.
   */
  buildIndexes(): void {
    if (!this.indexesDeferred) return;
    this.indexesDeferred = false;
    for (const index of this.secondaryIndexes()) index.fillOnUse(this.docs);
  }

  updateIndexSpec(spec: IndexSpec): void {
    this.indexes.get(spec.name)?.updateSpec(spec);
  }

  dropIndex(name: string): void {
    if (name !== ID_INDEX_NAME) this.indexes.delete(name);
  }

  private store(docs: Document[]): void {
    for (const doc of docs) {
      const id = canonicalKey(doc._id);
      this.strings.share(doc);
      if (this.indexesDeferred) {
        this.docs.set(id, doc);
        continue;
      }
      const old = this.docs.get(id);
      if (old) this.unindex(id, old);
      this.docs.set(id, doc);
      this.index(id, doc);
    }
  }

  private index(id: string, doc: Document): void {
    for (const index of this.secondaryIndexes()) index.add(id, doc);
  }

  private unindex(id: string, doc: Document): void {
    for (const index of this.secondaryIndexes()) index.remove(id, doc);
  }
}
