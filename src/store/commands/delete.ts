import { StoreError } from '../errors';
import { operationCollation } from '../query/collation';
import { matchingDocuments } from '../query/match';
import { collectionArg, numberArgument, optionalBoolean, requiredArray } from './arguments';
import type { Command } from './command';
import { requireDocument, runStatements } from './write-helpers';

/** `delete`: each statement's `limit` is 0 (all matches) or 1 (the first). */
export const deleteCommand: Command = {
  name: 'delete',
  async run(ctx) {
    const name = collectionArg(ctx, 'delete');
    const statements = requiredArray(ctx.body, 'deletes', 'delete');
    const ordered = optionalBoolean(ctx.body, 'ordered') ?? true;
    let n = 0;
    const writeErrors = await runStatements(statements, ordered, (statement) => {
      const stmt = requireDocument(statement, 'delete statement');
      const q = requireDocument(stmt.q, "BSON field 'delete.deletes.q'");
      const limit = numberArgument(stmt.limit) ?? stmt.limit ?? 0;
      if (limit !== 0 && limit !== 1) {
        throw new StoreError(
          'FailedToParse',
          `The limit field in delete objects must be 0 or 1. Got ${String(limit)}`,
        );
      }
      const coll = ctx.catalog.collection(ctx.db, name);
      const docs = matchingDocuments(coll, q, limit, {
        hint: stmt.hint,
        collation: operationCollation(stmt.collation, coll?.options),
      });
      n += docs.length;
      return coll && docs.length
        ? ctx.catalog.commit([{ op: 'delete', ns: coll.ns, ids: docs.map((d) => d._id) }])
        : undefined;
    });
    return writeErrors.length ? { n, writeErrors } : { n };
  },
};
