import type { Document } from 'bson';
import { DocumentValidator } from '../query/document-validator';
import type { Mutation } from '../storage/mutation';
import { UniqueChecker } from '../storage/unique-checker';
import { collectionArg, optionalBoolean, requiredArray } from './arguments';
import type { Command } from './command';
import { checkDocumentSize } from './document-size';
import { collectionForWrite, requireDocument, runStatements, withId } from './write-helpers';

/**
 * `insert`: every document is checked (shape, `_id`, unique indexes against the store and the
 * rest of the batch) before one mutation inserts the accepted ones. Ordered stops at the first
 * error, unordered skips failing documents; both report `writeErrors` like mongod.
 */
export const insertCommand: Command = {
  name: 'insert',
  async run(ctx) {
    const name = collectionArg(ctx, 'insert');
    const raw = requiredArray(ctx.body, 'documents', 'insert');
    const ordered = optionalBoolean(ctx.body, 'ordered') ?? true;
    const { coll, created } = collectionForWrite(ctx, name);
    const checker = new UniqueChecker(coll);
    const validator = optionalBoolean(ctx.body, 'bypassDocumentValidation')
      ? null
      : DocumentValidator.of(coll.options);
    const accepted: Document[] = [];
    const writeErrors = await runStatements(raw, ordered, (statement) => {
      const sent = requireDocument(statement, 'document to insert');
      checkDocumentSize(sent, 'insert');
      const doc = withId(sent);
      const invalid = validator?.check(doc);
      if (invalid) throw invalid;
      const dup = checker.check(doc);
      if (dup) throw dup;
      checker.accept(doc, false);
      accepted.push(doc);
    });
    const batch: Mutation[] = [...created];
    if (accepted.length) batch.push({ op: 'insert', ns: coll.ns, docs: accepted });
    await ctx.catalog.commit(batch);
    return writeErrors.length ? { n: accepted.length, writeErrors } : { n: accepted.length };
  },
};
