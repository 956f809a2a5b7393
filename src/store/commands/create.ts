import type { Document } from 'bson';
import { StoreError } from '../errors';
import { collectionArg } from './arguments';
import type { Command } from './command';

// Options kept with the collection (listCollections shows them); the rest of the body is protocol.
const PROTOCOL_FIELDS = new Set(['create', '$db', 'lsid', '$clusterTime', 'txnNumber', '$readPreference', 'writeConcern', 'readConcern', 'apiVersion', 'apiStrict', 'apiDeprecationErrors', 'comment', 'maxTimeMS']);

export const createCommand: Command = {
  name: 'create',
  async run(ctx) {
    const name = collectionArg(ctx, 'create');
    const options: Document = {};
    for (const [k, v] of Object.entries(ctx.body)) if (!PROTOCOL_FIELDS.has(k)) options[k] = v;
    if (options.viewOn !== undefined) throw new StoreError('IllegalOperation' , 'views are not supported by the embedded store');
    if (ctx.catalog.collection(ctx.db, name)) {
      throw new StoreError('NamespaceExists', `Collection ${ctx.db}.${name} already exists.`);
    }
    await ctx.catalog.commit([{ op: 'createCollection', ns: `${ctx.db}.${name}`, options }]);
    return {};
  },
};
