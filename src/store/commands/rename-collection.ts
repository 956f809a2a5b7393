import { StoreError } from '../errors';
import { splitNamespace, validateCollectionName, validateDbName } from '../storage/namespace';
import { optionalBoolean } from './arguments';
import type { Command } from './command';

/** `renameCollection` (run on admin): `{renameCollection: "db.a", to: "db.b", dropTarget}`. */
export const renameCollectionCommand: Command = {
  name: 'renameCollection',
  async run(ctx) {
    const from = ctx.body.renameCollection;
    const to = ctx.body.to;
    if (typeof from !== 'string' || typeof to !== 'string') {
      throw new StoreError(
        'TypeMismatch',
        "'renameCollection' and 'to' must be namespace strings (\"db.collection\")",
      );
    }
    const [fromDb, fromName] = splitNamespace(from);
    const [toDb, toName] = splitNamespace(to);
    validateDbName(toDb);
    validateCollectionName(toDb, toName);
    if (ctx.db !== 'admin')
      throw new StoreError(
        'Unauthorized',
        'renameCollection may only be run against the admin database.',
      );
    if (!ctx.catalog.collection(fromDb, fromName)) {
      throw new StoreError('NamespaceNotFound', `Source collection ${from} does not exist`);
    }
    if (from === to)
      throw new StoreError('IllegalOperation', `Can't rename a collection to itself`);
    const dropTarget = optionalBoolean(ctx.body, 'dropTarget') === true;
    if (ctx.catalog.collection(toDb, toName) && !dropTarget) {
      throw new StoreError('NamespaceExists', 'target namespace exists');
    }
    await ctx.catalog.commit([{ op: 'renameCollection', from, to, dropTarget }]);
    return {};
  },
};
