import type { Document } from 'bson';
import { StoreError } from '../errors';
import { operationCollation } from '../query/collation';
import { matchingDocuments } from '../query/match';
import { compileFilter } from '../query/filter';
import { sortDocuments } from '../query/order';
import { compileProjection } from '../query/projection';
import { collectionArg, optionalBoolean, optionalObject } from './arguments';
import type { Command } from './command';
import { runUpdateStatement } from './update';

/**
 * `findAndModify`: removes or updates the first document in `sort` order and returns it (before
 * or, with `new`, after the update). Errors (duplicate key included) fail the whole command.
 */
export const findAndModifyCommand: Command = {
  name: 'findAndModify',
  aliases: ['findandmodify'],
  async run(ctx) {
    const name = collectionArg(ctx, 'findAndModify');
    const body = ctx.body;
    const query = optionalObject(body, 'query') ?? {};
    const sort = optionalObject(body, 'sort');
    const fields = optionalObject(body, 'fields');
    const remove = optionalBoolean(body, 'remove') === true;
    const returnNew = optionalBoolean(body, 'new') === true;
    const upsert = optionalBoolean(body, 'upsert') === true;
    const hasUpdate = body.update !== undefined;
    if (remove && hasUpdate)
      throw new StoreError('FailedToParse', 'Cannot specify both an update and remove=true');
    if (!remove && !hasUpdate)
      throw new StoreError('FailedToParse', 'Either an update or remove=true must be specified');
    if (remove && upsert)
      throw new StoreError('FailedToParse', 'Cannot specify both upsert=true and remove=true ');
    if (remove && returnNew)
      throw new StoreError(
        'FailedToParse',
        "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document",
      );
    const coll = ctx.catalog.collection(ctx.db, name);
    const collation = operationCollation(body.collation, coll?.options);
    // Compiled before anything is written: a bad projection fails the command with no effect.
    const projector = compileProjection(fields, compileFilter(query, 'filter', collation));
    const project = (doc: Document): Document => (projector ? projector(doc) : doc);

    if (remove) {
      const [doc] = sortDocuments(
        matchingDocuments(coll, query, 0, { hint: body.hint, collation }),
        sort,
        collation,
      );
      if (!coll || !doc) return { lastErrorObject: { n: 0 }, value: null };
      await ctx.catalog.commit([{ op: 'delete', ns: coll.ns, ids: [doc._id] }]);
      return { lastErrorObject: { n: 1 }, value: project(doc) };
    }

    const out = runUpdateStatement(ctx, name, {
      q: query,
      u: body.update,
      multi: false,
      upsert,
      arrayFilters: Array.isArray(body.arrayFilters) ? body.arrayFilters : undefined,
      hint: body.hint,
      collation: body.collation,
      sort,
    });
    await out.durable;
    if (out.error) throw out.error;
    const { result } = out;
    const upserted = result.upsertedId !== undefined;
    const lastErrorObject: Document = { n: result.n, updatedExisting: result.n > 0 && !upserted };
    if (upserted) lastErrorObject.upserted = result.upsertedId;
    const chosen = returnNew ? result.after : upserted ? undefined : result.before;
    return { lastErrorObject, value: chosen ? project(chosen) : null };
  },
};
