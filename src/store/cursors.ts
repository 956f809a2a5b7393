import { randomBytes } from 'node:crypto';
import { calculateObjectSize, Long, type Document } from 'bson';
import { StoreError } from './errors';

/** Idle cursors are closed after this long, as mongod's cursorTimeoutMillis (10 minutes). */
export const CURSOR_TIMEOUT_MS = 10 * 60 * 1000;
const DEFAULT_FIRST_BATCH = 101;
// Room for the reply envelope around the batch within maxBsonObjectSize.
const MAX_BATCH_BYTES = 16 * 1024 * 1024 - 64 * 1024;

interface ServerCursor {
  id: bigint;
  ns: string;
  docs: Document[];
  position: number;
  lastUsed: number;
  noTimeout: boolean;
}

export interface Batch {
  docs: Document[];
  /** 0 when the cursor is exhausted (and already closed). */
  id: Long;
}

/**
 * The server's open cursors. Results are computed when the cursor opens; later batches are
 * slices. Cursors belong to the server, not a connection, so any pooled connection may
 * continue them (as with mongod).
 */
export class CursorRegistry {
  private readonly cursors = new Map<bigint, ServerCursor>();
  private reaper: NodeJS.Timeout;
  private timeout: number;

  constructor(timeoutMs = CURSOR_TIMEOUT_MS) {
    this.timeout = timeoutMs;
    this.reaper = this.startReaper();
  }

  /** How long a cursor may stay idle (the `cursorTimeoutMillis` server parameter). */
  get timeoutMs(): number {
    return this.timeout;
  }

  set timeoutMs(ms: number) {
    this.timeout = ms;
    clearInterval(this.reaper);
    this.reaper = this.startReaper();
  }

  // Sweeps at least every minute, and often enough for a short timeout (never busily).
  private startReaper(): NodeJS.Timeout {
    const reaper = setInterval(() => this.reap(), Math.max(100, Math.min(60_000, this.timeout)));
    reaper.unref();
    return reaper;
  }

  /** Takes the first batch of `docs`; opens a cursor for the rest unless there is none. */
  open(
    ns: string,
    docs: Document[],
    opts: { batchSize?: number; singleBatch?: boolean; noTimeout?: boolean },
  ): Batch {
    const size = opts.batchSize && opts.batchSize > 0 ? opts.batchSize : DEFAULT_FIRST_BATCH;
    const batch = takeBatch(docs, 0, opts.batchSize === 0 ? 0 : size);
    if (batch.length === docs.length || opts.singleBatch) return { docs: batch, id: Long.ZERO };
    const cursor: ServerCursor = {
      id: this.newId(),
      ns,
      docs,
      position: batch.length,
      lastUsed: Date.now(),
      noTimeout: opts.noTimeout === true,
    };
    this.cursors.set(cursor.id, cursor);
    return { docs: batch, id: Long.fromBigInt(cursor.id) };
  }

  getMore(id: bigint, ns: string, batchSize?: number): Batch {
    const cursor = this.cursors.get(id);
    if (!cursor) throw new StoreError('CursorNotFound', `cursor id ${id} not found`);
    if (cursor.ns !== ns) {
      throw new StoreError(
        'Unauthorized',
        `Requested getMore on namespace '${ns}', but cursor belongs to a different namespace ${cursor.ns}`,
      );
    }
    const batch = takeBatch(
      cursor.docs,
      cursor.position,
      batchSize && batchSize > 0 ? batchSize : Infinity,
    );
    cursor.position += batch.length;
    cursor.lastUsed = Date.now();
    if (cursor.position >= cursor.docs.length) {
      this.cursors.delete(id);
      return { docs: batch, id: Long.ZERO };
    }
    return { docs: batch, id: Long.fromBigInt(id) };
  }

  kill(ids: bigint[]): { killed: bigint[]; notFound: bigint[] } {
    const killed: bigint[] = [];
    const notFound: bigint[] = [];
    for (const id of ids) (this.cursors.delete(id) ? killed : notFound).push(id);
    return { killed, notFound };
  }

  get openCount(): number {
    return this.cursors.size;
  }

  close(): void {
    clearInterval(this.reaper);
    this.cursors.clear();
  }

  /** Closes cursors idle longer than the timeout (except noCursorTimeout ones). */
  reap(now = Date.now()): number {
    let reaped = 0;
    for (const [id, cursor] of this.cursors) {
      if (!cursor.noTimeout && now - cursor.lastUsed > this.timeout) {
        this.cursors.delete(id);
        reaped += 1;
      }
    }
    return reaped;
  }

  private newId(): bigint {
    // Positive 63-bit ids, never 0 (0 means "exhausted" on the wire).
    let id = 0n;
    while (id === 0n || this.cursors.has(id))
      id = randomBytes(8).readBigInt64LE() & 0x7fffffffffffffffn;
    return id;
  }
}

function takeBatch(docs: Document[], from: number, max: number): Document[] {
  const out: Document[] = [];
  let bytes = 0;
  for (let i = from; i < docs.length && out.length < max; i++) {
    const size = calculateObjectSize(docs[i]);
    // Always return at least one document, as mongod does, so a cursor can make progress.
    if (out.length > 0 && bytes + size > MAX_BATCH_BYTES) break;
    bytes += size;
    out.push(docs[i]);
  }
  return out;
}
