import type { Document } from 'bson';
import type { StoreError } from '../errors';
import { canonicalKey } from './canonical-key';
import { ID_INDEX_NAME, type Collection } from './collection';

/**
 * Checks the unique indexes for a sequence of writes planned in one command, before anything is
 * applied: each accepted write is remembered, so two documents of the same batch that collide
 * are caught as well as collisions with stored documents.
 */
export class UniqueChecker {
  /** index name → key → canonical id of the planned document holding it. */
  private readonly added = new Map<string, Map<string, string>>();
  /** Ids whose stored version is being replaced or deleted: their stored keys no longer count. */
  private readonly superseded = new Set<string>();

  constructor(private readonly collection: Collection) {}

  /**
   * The duplicate-key error `doc` would raise, or null. `replacing`: the document is a new
   * version of a stored one (same `_id`), so its own `_id` is not a collision.
   */
  check(doc: Document, replacing = false): StoreError | null {
    const id = canonicalKey(doc._id);
    for (const index of this.collection.indexes.values()) {
      const planned = this.added.get(index.name);
      if (index.name === ID_INDEX_NAME) {
        if (replacing) continue;
        const taken =
          (this.collection.docs.has(id) && !this.superseded.has(id)) || planned?.has(id);
        if (taken) return index.duplicateError(this.collection.ns, [doc._id]);
        continue;
      }
      if (!index.unique) continue;
      for (const { key, values } of index.keysFor(doc)) {
        const holder = planned?.get(key);
        if (holder !== undefined && holder !== id)
          return index.duplicateError(this.collection.ns, values);
        const live = index.lookup(key);
        if (live) {
          for (const other of live) {
            if (other !== id && !this.superseded.has(other)) {
              return index.duplicateError(this.collection.ns, values);
            }
          }
        }
      }
    }
    return null;
  }

  /** Records a planned insert (`replacing` false) or replacement of the stored version. */
  accept(doc: Document, replacing: boolean): void {
    const id = canonicalKey(doc._id);
    if (replacing) this.superseded.add(id);
    for (const index of this.collection.indexes.values()) {
      if (index.name === ID_INDEX_NAME) {
        if (!replacing) this.plannedFor(index.name).set(id, id);
        continue;
      }
      if (!index.unique) continue;
      const planned = this.plannedFor(index.name);
      for (const { key } of index.keysFor(doc)) planned.set(key, id);
    }
  }

  /** Records a planned delete. */
  remove(id: unknown): void {
    this.superseded.add(canonicalKey(id));
  }

  private plannedFor(name: string): Map<string, string> {
    let m = this.added.get(name);
    if (!m) this.added.set(name, (m = new Map()));
    return m;
  }
}
