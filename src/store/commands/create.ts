import type { Document } from 'bson';
import { StoreError } from '../errors';
import { parseCollation } from '../query/collation';
import { checkValidationOptions } from '../query/document-validator';
import { collectionArg } from './arguments';
import type { Command } from './command';

/** Fields of any command body that are protocol, not options of the command itself. */
export const PROTOCOL_FIELDS = new Set(['$db', 'lsid', '$clusterTime', 'txnNumber', '$readPreference', 'writeConcern', 'readConcern', 'apiVersion', 'apiStrict', 'apiDeprecationErrors', 'comment', 'maxTimeMS']);

export const createCommand: Command = {
  name: 'create',
  async run(ctx) {
    const name = collectionArg(ctx, 'create');
    const options: Document = {};
    // Options kept with the collection (listCollections shows them); the rest of the body is protocol.
    for (const [k, v] of Object.entries(ctx.body)) if (k !== 'create' && !PROTOCOL_FIELDS.has(k)) options[k] = v;
    if (options.viewOn !== undefined) throw new StoreError('IllegalOperation' , 'views are not supported by the embedded store');
    checkValidationOptions(options, 'create');
    if (options.collation !== undefined) {
      // Kept as mongod keeps it: every field filled in; the simple collation is no collation.
      const collation = parseCollation(options.collation);
      if (collation) options.collation = collation.spec;
      else delete options.collation;
    }
    if (ctx.catalog.collection(ctx.db, name)) {
      throw new StoreError('NamespaceExists', `Collection ${ctx.db}.${name} already exists.`);
    }
    await ctx.catalog.commit([{ op: 'createCollection', ns: `${ctx.db}.${name}`, options }]);
    return {};
  },
};
