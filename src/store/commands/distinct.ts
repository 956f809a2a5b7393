import { StoreError } from '../errors';
import { matchingDocuments } from '../query/match';
import { canonicalKey } from '../storage/canonical-key';
import { MISSING, valuesAtPath } from '../storage/document-paths';
import { collectionArg, optionalObject } from './arguments';
import type { Command } from './command';

/** `distinct`: array values contribute their elements, as in mongod. */
export const distinctCommand: Command = {
  name: 'distinct',
  run(ctx) {
    const name = collectionArg(ctx, 'distinct');
    const key = ctx.body.key;
    if (typeof key !== 'string' || key === '') {
      throw new StoreError('TypeMismatch', `BSON field 'distinct.key' is the wrong type, expected a non-empty string, got ${JSON.stringify(key)}`);
    }
    const seen = new Map<string, unknown>();
    for (const doc of matchingDocuments(ctx.catalog.collection(ctx.db, name), optionalObject(ctx.body, 'query') ?? {})) {
      for (const v of valuesAtPath(doc, key)) {
        // An empty array contributes no value (valuesAtPath keeps it for indexing only).
        if (v === MISSING || v === undefined || (Array.isArray(v) && v.length === 0)) continue;
        const k = canonicalKey(v);
        if (!seen.has(k)) seen.set(k, v);
      }
    }
    return { values: [...seen.values()] };
  },
};
