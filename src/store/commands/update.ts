import type { Document } from 'bson';
import { StoreError } from '../errors';
import { operationCollation } from '../query/collation';
import { DocumentValidator } from '../query/document-validator';
import { matchingDocuments } from '../query/match';
import { sortDocuments } from '../query/order';
import { applyUpdate, updateKind } from '../query/update-document';
import { upsertSeed } from '../query/upsert-seed';
import type { Mutation } from '../storage/mutation';
import { UniqueChecker } from '../storage/unique-checker';
import { collectionArg, optionalBoolean, requiredArray } from './arguments';
import type { Command, CommandContext } from './command';
import { checkDocumentSize } from './document-size';
import { collectionForWrite, requireDocument, runStatements, withId } from './write-helpers';

export interface UpdateStatementResult {
  n: number;
  nModified: number;
  upsertedId?: unknown;
  /** The document before/after, for findAndModify. */
  before?: Document;
  after?: Document;
}

/**
 * Plans and commits one update statement. Matching documents are updated one by one against a
 * UniqueChecker; a duplicate key stops the statement after the documents already planned (as in
 * mongod, a multi-update is not atomic). The commit is started synchronously, so the next
 * statement sees this one's effect; the returned promise settles when it is durable.
 */
export function runUpdateStatement(
  ctx: CommandContext,
  name: string,
  stmt: {
    q: Document;
    u: unknown;
    multi: boolean;
    upsert: boolean;
    arrayFilters?: Document[];
    hint?: unknown;
    collation?: unknown;
    sort?: Document;
  },
): { result: UpdateStatementResult; durable: Promise<void>; error?: StoreError } {
  const kind = updateKind(stmt.u, stmt.arrayFilters);
  if (stmt.multi && kind === 'replacement') {
    throw new StoreError(
      'FailedToParse',
      'multi update is not supported for replacement-style update',
    );
  }
  const { coll, created } = collectionForWrite(ctx, name);
  const stored = ctx.catalog.collection(ctx.db, name);
  const collation = operationCollation(stmt.collation, stored?.options);
  let matches = matchingDocuments(stored, stmt.q, stmt.sort ? 0 : stmt.multi ? 0 : 1, {
    hint: stmt.hint,
    collation,
  });
  if (stmt.sort)
    matches = sortDocuments(matches, stmt.sort, collation).slice(0, stmt.multi ? undefined : 1);
  const checker = new UniqueChecker(coll);
  const validator = optionalBoolean(ctx.body, 'bypassDocumentValidation')
    ? null
    : DocumentValidator.of(coll.options);
  const replaced: Document[] = [];
  const result: UpdateStatementResult = { n: 0, nModified: 0 };
  let error: StoreError | undefined;
  try {
    for (const doc of matches) {
      const { doc: next, changed } = applyUpdate(doc, stmt.u, {
        arrayFilters: stmt.arrayFilters,
        filter: stmt.q,
        collation,
      });
      if (changed) checkDocumentSize(next, 'update');
      result.n += 1;
      result.before = doc;
      result.after = next;
      if (!changed) continue;
      const invalid = validator?.check(next, doc);
      if (invalid) throw invalid;
      const dup = checker.check(next, true);
      if (dup) throw dup;
      checker.accept(next, true);
      replaced.push(next);
    }
    result.nModified = replaced.length;
    if (matches.length === 0 && stmt.upsert) {
      const seed = kind === 'replacement' ? pickId(upsertSeed(stmt.q)) : upsertSeed(stmt.q);
      const { doc: built } = applyUpdate(seed, stmt.u, {
        arrayFilters: stmt.arrayFilters,
        collation,
        inserting: true,
      });
      const doc = withId(built);
      checkDocumentSize(doc, 'upsert');
      const invalid = validator?.check(doc);
      if (invalid) throw invalid;
      const dup = checker.check(doc);
      if (dup) throw dup;
      result.n = 1;
      result.upsertedId = doc._id;
      result.after = doc;
      const batch: Mutation[] = [...created, { op: 'insert', ns: coll.ns, docs: [doc] }];
      return { result, durable: ctx.catalog.commit(batch) };
    }
  } catch (err) {
    if (!(err instanceof StoreError)) throw err;
    error = err;
    result.nModified = replaced.length;
  }
  const batch: Mutation[] = replaced.length ? [{ op: 'replace', ns: coll.ns, docs: replaced }] : [];
  return { result, durable: ctx.catalog.commit(batch), error };
}

// A replacement upsert keeps only the _id of the filter's equalities.
function pickId(seed: Document): Document {
  return seed._id !== undefined ? { _id: seed._id } : {};
}

export const updateCommand: Command = {
  name: 'update',
  async run(ctx) {
    const name = collectionArg(ctx, 'update');
    const statements = requiredArray(ctx.body, 'updates', 'update');
    const ordered = optionalBoolean(ctx.body, 'ordered') ?? true;
    let n = 0;
    let nModified = 0;
    const upserted: Document[] = [];
    const writeErrors = await runStatements(statements, ordered, (statement, i, track) => {
      const raw = requireDocument(statement, 'update statement');
      const q = requireDocument(raw.q ?? {}, "BSON field 'update.updates.q'");
      if (raw.u === undefined)
        throw new StoreError(
          'Location40414',
          "BSON field 'update.updates.u' is missing but a required field",
        );
      const out = runUpdateStatement(ctx, name, {
        q,
        u: raw.u,
        multi: raw.multi === true,
        upsert: raw.upsert === true,
        arrayFilters: Array.isArray(raw.arrayFilters) ? raw.arrayFilters : undefined,
        hint: raw.hint,
        collation: raw.collation,
      });
      n += out.result.n;
      nModified += out.result.nModified;
      if (out.result.upsertedId !== undefined)
        upserted.push({ index: i, _id: out.result.upsertedId });
      track(out.durable);
      if (out.error) throw out.error;
    });
    return {
      n,
      nModified,
      ...(upserted.length ? { upserted } : {}),
      ...(writeErrors.length ? { writeErrors } : {}),
    };
  },
};
