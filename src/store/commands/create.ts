import type { Document } from 'bson';
import { StoreError } from '../errors';
import { parseCollation } from '../query/collation';
import { checkValidationOptions } from '../query/document-validator';
import { collectionArg, optionalBoolean, optionalNumber } from './arguments';
import type { Command } from './command';
import { isGenericArgument } from './generic-arguments';

export const createCommand: Command = {
  name: 'create',
  async run(ctx) {
    const name = collectionArg(ctx, 'create');
    const options: Document = {};
    // Options kept with the collection (listCollections shows them); the rest of the body is protocol.
    for (const [k, v] of Object.entries(ctx.body))
      if (k !== 'create' && !isGenericArgument(k)) options[k] = v;
    if (options.viewOn !== undefined)
      throw new StoreError('IllegalOperation', 'views are not supported by the embedded store');
    checkCappedOptions(ctx.body);
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

/** mongod's rules for `capped`, `size` and `max` (clustered collections aside, which the store has not). */
function checkCappedOptions(body: Document): void {
  const capped = optionalBoolean(body, 'capped') === true;
  const size = optionalNumber(body, 'size');
  const max = optionalNumber(body, 'max');
  if (size !== undefined && size < 1) {
    throw new StoreError(
      'Location51024',
      `BSON field 'size' value must be >= 1, actual value '${size}'`,
    );
  }
  if (capped && size === undefined) {
    throw new StoreError('InvalidOptions', "the 'size' field is required when 'capped' is true");
  }
  if ((size !== undefined || max !== undefined) && !capped) {
    throw new StoreError(
      'InvalidOptions',
      "the 'capped' field needs to be true when either the 'size' or 'max' fields are present",
    );
  }
}
