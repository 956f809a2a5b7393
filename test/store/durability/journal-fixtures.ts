import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Binary, Decimal128, Long, ObjectId, serialize, Timestamp, type Document } from 'bson';
import { deserializeStored } from '../../../src/store/storage/stored-values';
import type { Mutation } from '../../../src/store/storage/mutation';

/** A fresh temp directory per test, removed by `cleanup()`. */
export function tempDirs(): { make(): string; cleanup(): void } {
  const made: string[] = [];
  return {
    make() {
      const dir = mkdtempSync(join(tmpdir(), 'pg-journal-'));
      made.push(dir);
      return dir;
    },
    cleanup() {
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A document as the wire layer hands it to the catalog: built as BSON with explicit types, then
 * decoded into the store's in-memory form (Int32 and most Doubles become numbers, Longs stay Long...).
 */
export function wireDoc(doc: Document): Document {
  return deserializeStored(serialize(doc));
}

/** One document carrying every BSON type the journal must round-trip. */
export function richDoc(i: number): Document {
  return wireDoc({
    _id: new ObjectId(),
    i,
    double: 1.5 + i,
    negZero: -0,
    big: Long.fromString('9223372036854775807'),
    safeLong: Long.fromNumber(2 ** 40 + i),
    dec: Decimal128.fromString('12345678901234567890.123456789'),
    when: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
    bin: new Binary(Buffer.from([0, 1, 2, 255]), 0),
    uuid: new Binary(Buffer.alloc(16, 7), 4),
    ts: new Timestamp({ t: 1700000000, i }),
    nested: { a: [1, [2, [3, null]], { b: 'x' }], empty: {} },
    nul: null,
    str: 'ünïcødé ✓',
    bool: false,
    re: /a.b/gi,
    'dotted.key': 1,
    $dollar: 2,
  });
}

/** A batch of every mutation kind. */
export function everyKindBatch(): Mutation[] {
  const a = richDoc(1);
  const b = richDoc(2);
  return [
    { op: 'createCollection', ns: 'app.things', options: { capped: false } },
    {
      op: 'createIndexes',
      ns: 'app.things',
      specs: [{ key: { i: 1 }, name: 'i_1', unique: true }],
    },
    { op: 'insert', ns: 'app.things', docs: [a, b] },
    { op: 'replace', ns: 'app.things', docs: [{ ...a, i: 10 }] },
    { op: 'delete', ns: 'app.things', ids: [b._id, 'string-id', 42, { compound: 1 }] },
    {
      op: 'updateIndexSpec',
      ns: 'app.things',
      spec: { v: 2, key: { i: 1 }, name: 'i_1', unique: true, hidden: true },
    },
    { op: 'dropIndexes', ns: 'app.things', names: ['i_1'] },
    { op: 'renameCollection', from: 'app.things', to: 'app.stuff', dropTarget: true },
    { op: 'dropCollection', ns: 'app.gone' },
    { op: 'dropDatabase', db: 'old' },
  ];
}

/** Byte-exact comparison: both sides serialised the way the journal serialises them. */
export function bsonBytes(mutations: readonly Mutation[]): Buffer {
  return Buffer.concat(mutations.map((m) => Buffer.from(serialize({ m }))));
}

/** A tiny reference model of the catalog: namespace → _id (as JSON) → document. */
export type ModelState = Map<string, Map<string, Document>>;

export function applyMutations(
  mutations: Iterable<Mutation>,
  state: ModelState = new Map(),
): ModelState {
  const coll = (ns: string): Map<string, Document> => {
    let c = state.get(ns);
    if (!c) state.set(ns, (c = new Map()));
    return c;
  };
  for (const m of mutations) {
    switch (m.op) {
      case 'insert':
      case 'replace':
        for (const doc of m.docs) coll(m.ns).set(JSON.stringify(doc._id), doc);
        break;
      case 'delete':
        for (const id of m.ids) coll(m.ns).delete(JSON.stringify(id));
        break;
      case 'dropCollection':
        state.delete(m.ns);
        break;
      default:
        throw new Error(`the test model does not handle ${m.op}`);
    }
  }
  return state;
}

/** The model as the mutations a catalog would hand to `compact`. */
export function* modelAsMutations(state: ModelState): Generator<Mutation> {
  for (const [ns, docs] of state) yield { op: 'insert', ns, docs: [...docs.values()] };
}
