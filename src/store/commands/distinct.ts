import { StoreError } from '../errors';
import { collatedEqual } from '../query/collated-filter';
import { operationCollation } from '../query/collation';
import { matchingDocuments } from '../query/match';
import { canonicalKey } from '../storage/canonical-key';
import { MISSING, valuesAtPath } from '../storage/document-paths';
import { collectionArg, optionalObject } from './arguments';
import type { Command } from './command';

/**
 * `distinct`: array values contribute their elements, as in mongod. Under a collation, strings it
 * holds equal count once (the first one met stands for them).
 */
export const distinctCommand: Command = {
  name: 'distinct',
  run(ctx) {
    const name = collectionArg(ctx, 'distinct');
    const key = ctx.body.key;
    if (typeof key !== 'string' || key === '') {
      throw new StoreError(
        'TypeMismatch',
        `BSON field 'distinct.key' is the wrong type, expected a non-empty string, got ${JSON.stringify(key)}`,
      );
    }
    const coll = ctx.catalog.collection(ctx.db, name);
    const collation = operationCollation(ctx.body.collation, coll?.options);
    const seen = new Map<string, unknown>();
    const collated: unknown[] = [];
    for (const doc of matchingDocuments(coll, optionalObject(ctx.body, 'query') ?? {}, 0, {
      collation,
    })) {
      for (const v of valuesAtPath(doc, key)) {
        // An empty array contributes no value (valuesAtPath keeps it for indexing only).
        if (v === MISSING || v === undefined || (Array.isArray(v) && v.length === 0)) continue;
        if (collation && typeof v === 'string') {
          if (!collated.some((c) => collatedEqual(c, v, collation))) collated.push(v);
          continue;
        }
        const k = canonicalKey(v);
        if (!seen.has(k)) seen.set(k, v);
      }
    }
    return { values: [...seen.values(), ...collated] };
  },
};
