import type { Document } from 'bson';
import { StoreError } from '../errors';
import { checkValidationOptions } from '../query/document-validator';
import { collectionArg } from './arguments';
import type { Command } from './command';
import { PROTOCOL_FIELDS } from './create';

const VALIDATION_FIELDS = new Set(['validator', 'validationLevel', 'validationAction']);
/** collMod options mongod has that the embedded store does not implement. */
const UNSUPPORTED = new Set(['index', 'viewOn', 'pipeline', 'expireAfterSeconds', 'timeseries', 'changeStreamPreAndPostImages', 'clusteredIndex', 'dryRun', 'cappedSize', 'cappedMax']);

/** `collMod`: changes a collection's validation rules; the new options are journaled whole. */
export const collModCommand: Command = {
  name: 'collMod',
  async run(ctx) {
    const name = collectionArg(ctx, 'collMod');
    const changes: Document = {};
    for (const [field, value] of Object.entries(ctx.body)) {
      if (field === 'collMod' || PROTOCOL_FIELDS.has(field)) continue;
      if (UNSUPPORTED.has(field)) throw new StoreError('InvalidOptions', `collMod option '${field}' is not supported by the embedded store`);
      if (!VALIDATION_FIELDS.has(field)) throw new StoreError('Location40415', `BSON field 'collMod.${field}' is an unknown field.`);
      changes[field] = value;
    }
    checkValidationOptions(changes, 'collMod');
    const coll = ctx.catalog.collection(ctx.db, name);
    if (!coll) throw new StoreError('NamespaceNotFound', `ns does not exist: ${ctx.db}.${name}`);
    await ctx.catalog.commit([{ op: 'setCollectionOptions', ns: coll.ns, options: { ...coll.options, ...changes } }]);
    return {};
  },
};
