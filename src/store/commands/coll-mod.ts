import type { Document } from 'bson';
import { StoreError } from '../errors';
import { checkValidationOptions } from '../query/document-validator';
import { viewOf } from '../query/mingo-view';
import { ID_INDEX_NAME } from '../storage/collection';
import { isPlainObject } from '../storage/document-paths';
import type { Index } from '../storage/index';
import type { Mutation } from '../storage/mutation';
import { collectionArg } from './arguments';
import type { Command } from './command';
import { isGenericArgument } from './generic-arguments';

const VALIDATION_FIELDS = new Set(['validator', 'validationLevel', 'validationAction']);
/** collMod options mongod has that the embedded store does not implement. */
const UNSUPPORTED = new Set([
  'viewOn',
  'pipeline',
  'expireAfterSeconds',
  'timeseries',
  'changeStreamPreAndPostImages',
  'clusteredIndex',
  'dryRun',
  'cappedSize',
  'cappedMax',
]);

/**
 * `collMod`: changes a collection's validation rules (`validator`, `validationLevel`,
 * `validationAction`) and hides or unhides an index (`index: {name | keyPattern, hidden}`,
 * answering `hidden_old`/`hidden_new` when the setting changes). A hidden index is still
 * maintained and still enforces uniqueness, but no query uses it. Everything is checked before
 * anything is written, and both changes are journalled in one batch: the new collection options
 * whole, and the index's new spec.
 */
export const collModCommand: Command = {
  name: 'collMod',
  async run(ctx) {
    const name = collectionArg(ctx, 'collMod');
    const changes: Document = {};
    let indexRequest: unknown;
    for (const [field, value] of Object.entries(ctx.body)) {
      if (field === 'collMod' || isGenericArgument(field)) continue;
      if (UNSUPPORTED.has(field))
        throw new StoreError(
          'InvalidOptions',
          `collMod option '${field}' is not supported by the embedded store`,
        );
      if (field === 'index') indexRequest = value;
      else if (VALIDATION_FIELDS.has(field)) changes[field] = value;
      else
        throw new StoreError('Location40415', `BSON field 'collMod.${field}' is an unknown field.`);
    }
    checkValidationOptions(changes, 'collMod');
    const coll = ctx.catalog.collection(ctx.db, name);
    if (!coll) throw new StoreError('NamespaceNotFound', `ns does not exist: ${ctx.db}.${name}`);
    const batch: Mutation[] = [];
    const reply: Document = {};
    if (Object.keys(changes).length > 0)
      batch.push({
        op: 'setCollectionOptions',
        ns: coll.ns,
        options: { ...coll.options, ...changes },
      });
    if (indexRequest !== undefined) {
      const { index, hidden } = hidingRequest(coll.indexes, indexRequest, coll.ns);
      // Hiding a hidden index or unhiding a visible one changes nothing and reports nothing.
      if (index.hidden !== hidden) {
        const { hidden: _was, ...rest } = index.spec;
        batch.push({
          op: 'updateIndexSpec',
          ns: coll.ns,
          spec: hidden ? { ...rest, hidden: true } : rest,
        });
        Object.assign(reply, { hidden_old: !hidden, hidden_new: hidden });
      }
    }
    if (batch.length > 0) await ctx.catalog.commit(batch);
    return reply;
  },
};

/** The index collMod's `index` option names and the `hidden` setting it asks for, checked as mongod checks them. */
function hidingRequest(
  indexes: ReadonlyMap<string, Index>,
  request: unknown,
  ns: string,
): { index: Index; hidden: boolean } {
  if (!isPlainObject(request)) {
    throw new StoreError(
      'TypeMismatch',
      `BSON field 'collMod.index' is the wrong type '${typeof request}', expected type 'object'`,
    );
  }
  for (const field of Object.keys(request)) {
    if (!['name', 'keyPattern', 'hidden'].includes(field)) {
      throw new StoreError(
        'InvalidOptions',
        `collMod index option '${field}' is not supported by the embedded store`,
      );
    }
  }
  const index = findIndex(indexes, request, ns);
  if (typeof request.hidden !== 'boolean') {
    throw new StoreError(
      'InvalidOptions',
      request.hidden === undefined
        ? 'no expireAfterSeconds or hidden field'
        : 'hidden field must be a boolean',
    );
  }
  if (index.name === ID_INDEX_NAME) throw new StoreError('BadValue', "can't hide _id index");
  return { index, hidden: request.hidden };
}

function findIndex(indexes: ReadonlyMap<string, Index>, request: Document, ns: string): Index {
  const { name, keyPattern } = request;
  if (name !== undefined && keyPattern !== undefined)
    throw new StoreError('InvalidOptions', 'Cannot specify both key pattern and name.');
  if (name === undefined && keyPattern === undefined)
    throw new StoreError('InvalidOptions', 'Must specify either index name or key pattern.');
  if (name !== undefined) {
    if (typeof name !== 'string')
      throw new StoreError('InvalidOptions', 'Index name must be a string.');
    const index = indexes.get(name);
    if (!index) throw new StoreError('IndexNotFound', `cannot find index ${name} for ns ${ns}`);
    return index;
  }
  if (!isPlainObject(keyPattern))
    throw new StoreError('InvalidOptions', 'Key pattern must be an object.');
  // Directions of any numeric type, as the stored key pattern holds them (index-spec.ts).
  const wanted = JSON.stringify(viewOf(keyPattern));
  const index = [...indexes.values()].find((i) => JSON.stringify(i.spec.key) === wanted);
  if (!index) throw new StoreError('IndexNotFound', `cannot find index ${wanted} for ns ${ns}`);
  return index;
}
