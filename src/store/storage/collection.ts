import type { Document } from 'bson';
import { canonicalKey } from './canonical-key';
import { Index } from './index';
import type { IndexSpec } from './index-spec';
import type { EncodedDocuments } from './mutation';
import { decodeDocuments } from './stored-values';
import { StringPool } from './string-pool';

export const ID_INDEX_NAME = '_id_';

/** A write read from a data directory and not applied yet, in the order the journal holds them. */
type PendingWrite =
  { op: 'insert' | 'replace'; encoded: EncodedDocuments } | { op: 'delete'; ids: unknown[] };

/**
 * One collection in memory: documents by canonical `_id` key (a Map keeps insertion order,
 * which serves as natural order) and its indexes. Only the catalog's `apply` calls the
 * mutating methods; commands read.
 *
 * A collection read from a data directory keeps its documents as the journal's BSON until
 * something first reads them (`docs`): a start decodes only the collections it uses, and a
 * collection nothing reads costs its bytes, not its decoded documents.
 */
export class Collection {
  readonly indexes = new Map<string, Index>();
  private readonly documents = new Map<string, Document>();
  /**
   * Writes read while loading, applied to `documents` on first read. While any is pending, no
   * secondary index has been filled: filling one reads `docs`, which applies them first.
   */
  private pending: PendingWrite[] = [];
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

  /** The documents by canonical `_id` key; the first read decodes what loading left as BSON. */
  get docs(): Map<string, Document> {
    if (this.pending.length > 0) this.applyPending();
    return this.documents;
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

  /** While loading: documents read from the journal, stored when the collection is first read. */
  storeEncoded(op: 'insert' | 'replace', encoded: EncodedDocuments): void {
    this.pending.push({ op, encoded });
  }

  /**
   * The collection's documents as the journal's BSON inserts, when that is all it holds (loaded
   * and never read): a compaction copies them as they are. Null otherwise.
   */
  encodedInserts(): EncodedDocuments[] | null {
    if (this.pending.length === 0 || this.documents.size > 0) return null;
    const encoded: EncodedDocuments[] = [];
    for (const write of this.pending) {
      if (write.op !== 'insert') return null;
      encoded.push(write.encoded);
    }
    return encoded;
  }

  delete(ids: unknown[]): void {
    if (this.pending.length > 0 && this.indexesDeferred) {
      this.pending.push({ op: 'delete', ids });
      return;
    }
    const docs = this.docs;
    for (const raw of ids) {
      const id = canonicalKey(raw);
      if (this.indexesDeferred) {
        docs.delete(id);
        continue;
      }
      const old = docs.get(id);
      if (!old) continue;
      this.unindex(id, old);
      docs.delete(id);
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
    for (const index of this.secondaryIndexes()) index.fillOnUse(() => this.docs);
  }

  updateIndexSpec(spec: IndexSpec): void {
    this.indexes.get(spec.name)?.updateSpec(spec);
  }

  dropIndex(name: string): void {
    if (name !== ID_INDEX_NAME) this.indexes.delete(name);
  }

  private store(docs: Document[]): void {
    const stored = this.docs;
    for (const doc of docs) {
      const id = canonicalKey(doc._id);
      this.strings.share(doc);
      if (this.indexesDeferred) {
        stored.set(id, doc);
        continue;
      }
      const old = stored.get(id);
      if (old) this.unindex(id, old);
      stored.set(id, doc);
      this.index(id, doc);
    }
  }

  /** Applies the writes loading left pending; no index holds entries yet, so none is touched. */
  private applyPending(): void {
    // Taken from the end of the reversed list, each write is let go once applied: the bytes read
    // at start are freed as the documents are decoded, not all held until the last one.
    const pending = this.pending.reverse();
    this.pending = [];
    for (let write = pending.pop(); write; write = pending.pop()) {
      if (write.op === 'delete') {
        for (const id of write.ids) this.documents.delete(canonicalKey(id));
        continue;
      }
      for (const doc of decodeDocuments(write.encoded)) {
        this.strings.share(doc);
        this.documents.set(canonicalKey(doc._id), doc);
      }
    }
  }

  private index(id: string, doc: Document): void {
    for (const index of this.secondaryIndexes()) index.add(id, doc);
  }

  private unindex(id: string, doc: Document): void {
    for (const index of this.secondaryIndexes()) index.remove(id, doc);
  }
}
