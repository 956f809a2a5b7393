import type { Document } from 'bson';
import { isPlainObject } from './document-paths';

/** Strings longer than this are rarely repeated values (texts, not ids or names): left alone. */
const MAX_POOLED_LENGTH = 64;
/** Distinct strings kept before the pool starts afresh: bounds what it holds by itself. */
const MAX_POOLED_STRINGS = 1 << 17;
/** An own field of that name (the decoder makes one) would become the prototype if assigned to. */
const PROTO = '__proto__';

/**
 * Makes equal short string values of stored documents one string in memory. Each document comes
 * from its own decoded BSON, so the same snapshot id, owner id, stage or deal name held by
 * thousands of documents would otherwise be thousands of copies. Field names need no pooling:
 * the engine already keeps one copy of each property name.
 *
 * The pool holds at most MAX_POOLED_STRINGS strings and then empties itself: strings already
 * shared stay shared, and strings of deleted documents are not kept alive for long.
 */
export class StringPool {
  private readonly strings = new Map<string, string>();

  /** Replaces, in place, the document's string values (at any depth, `_id` aside) by pooled ones. */
  share(doc: Document): void {
    for (const key of Object.keys(doc))
      if (key !== '_id' && key !== PROTO) doc[key] = this.shareValue(doc[key]);
  }

  private shareValue(value: unknown): unknown {
    if (typeof value === 'string') return this.shareString(value);
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = this.shareValue(value[i]);
    } else if (isPlainObject(value)) {
      for (const key of Object.keys(value))
        if (key !== PROTO) value[key] = this.shareValue(value[key]);
    }
    return value;
  }

  private shareString(value: string): string {
    if (value.length > MAX_POOLED_LENGTH) return value;
    const pooled = this.strings.get(value);
    if (pooled !== undefined) return pooled;
    if (this.strings.size >= MAX_POOLED_STRINGS) this.strings.clear();
    this.strings.set(value, value);
    return value;
  }
}
