import type { Document } from 'bson';

/**
 * A mutation is the unit of change of the embedded store. Commands never edit state directly:
 * they validate, compute the mutations of their effect, and hand them to the catalog, which
 * applies them in memory and appends them to the journal. Replaying the journal applies the same
 * mutations through the same code, so the live path and recovery cannot diverge.
 *
 * `ns` is "<db>.<collection>". Documents are stored whole (after an update, the new version),
 * which keeps replay idempotent and independent of update-operator semantics.
 */
export type Mutation =
  | { op: 'createCollection'; ns: string; options: Document }
  /** Replace an existing collection's options (collMod) with these whole new ones. */
  | { op: 'setCollectionOptions'; ns: string; options: Document }
  | { op: 'dropCollection'; ns: string }
  | { op: 'dropDatabase'; db: string }
  | { op: 'renameCollection'; from: string; to: string; dropTarget: boolean }
  | { op: 'createIndexes'; ns: string; specs: Document[] }
  | { op: 'dropIndexes'; ns: string; names: string[] }
  /** Replace an index's spec by name: only options that leave its keys as they are (`hidden`). */
  | { op: 'updateIndexSpec'; ns: string; spec: Document }
  /** Insert new documents; each has an `_id`. */
  | { op: 'insert'; ns: string; docs: Document[] }
  /** Replace existing documents, matched by `_id`, with these whole new versions. */
  | { op: 'replace'; ns: string; docs: Document[] }
  /** Delete documents by `_id`. */
  | { op: 'delete'; ns: string; ids: unknown[] };

/**
 * BSON documents one after another, as a journal record holds an insert's or a replace's list: a
 * data directory's documents stay in this form until their collection is first read.
 */
export interface EncodedDocuments {
  bytes: Buffer;
  count: number;
}

/** An insert or replace read from a journal, its documents not yet decoded. */
export type EncodedWrite = { op: 'insert' | 'replace'; ns: string; encoded: EncodedDocuments };

/** What a journal hands back when it opens: mutations, and writes whose documents are still BSON. */
export type LoadedMutation = Mutation | EncodedWrite;

/** Exhaustiveness guard for switches over discriminated unions. */
export class UnreachableCaseError extends Error {
  constructor(value: never) {
    super(`Unreachable case: ${JSON.stringify(value)}`);
  }
}
