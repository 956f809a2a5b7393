import type { Document } from 'bson';
import { StoreError } from '../errors';
import { ID_INDEX_NAME } from '../storage/collection';
import { isPlainObject } from '../storage/document-paths';
import type { Index } from '../storage/index';
import { collectionArg } from './arguments';
import type { Command } from './command';
import { isGenericArgument } from './server-parameters';

/**
 * `collMod`: hides or unhides an index (`index: {name | keyPattern, hidden}`), answering
 * `hidden_old`/`hidden_new` as mongod does when the setting changes. A hidden index is still
 * maintained and still enforces uniqueness, but no query uses it. The other collMod options
 * (validators, TTL changes, unique conversion) are refused: the store does not apply them.
 */
export const collModCommand: Command = {
  name: 'collMod',
  async run(ctx) {
    const name = collectionArg(ctx, 'collMod');
    const options = Object.keys(ctx.body).slice(1).filter((field) => !isGenericArgument(field));
    for (const field of options) {
      if (field !== 'index') throw new StoreError('InvalidOptions', `collMod option '${field}' is not supported by the embedded store`);
    }
    const coll = ctx.catalog.collection(ctx.db, name);
    if (!coll) throw new StoreError('NamespaceNotFound', `ns does not exist: ${ctx.db}.${name}`);
    if (!options.includes('index')) return {};
    const request = ctx.body.index;
    if (!isPlainObject(request)) {
      throw new StoreError('TypeMismatch', `BSON field 'collMod.index' is the wrong type '${typeof request}', expected type 'object'`);
    }
    for (const field of Object.keys(request)) {
      if (!['name', 'keyPattern', 'hidden'].includes(field)) {
        throw new StoreError('InvalidOptions', `collMod index option '${field}' is not supported by the embedded store`);
      }
    }
    const index = findIndex(coll.indexes, request, `${ctx.db}.${name}`);
    if (typeof request.hidden !== 'boolean') {
      throw new StoreError('InvalidOptions', request.hidden === undefined ? 'no expireAfterSeconds or hidden field' : 'hidden field must be a boolean');
    }
    if (index.name === ID_INDEX_NAME) throw new StoreError('BadValue', "can't hide _id index");
    // Hiding a hidden index or unhiding a visible one changes nothing and reports nothing.
    if (index.hidden === request.hidden) return {};
    const { hidden: _was, ...rest } = index.spec;
    const spec = request.hidden ? { ...rest, hidden: true } : rest;
    await ctx.catalog.commit([{ op: 'updateIndexSpec', ns: coll.ns, spec }]);
    return { hidden_old: !request.hidden, hidden_new: request.hidden };
  },
};

function findIndex(indexes: ReadonlyMap<string, Index>, request: Document, ns: string): Index {
  const { name, keyPattern } = request;
  if (name !== undefined && keyPattern !== undefined) throw new StoreError('InvalidOptions', 'Cannot specify both key pattern and name.');
  if (name === undefined && keyPattern === undefined) throw new StoreError('InvalidOptions', 'Must specify either index name or key pattern.');
  if (name !== undefined) {
    if (typeof name !== 'string') throw new StoreError('InvalidOptions', 'Index name must be a string.');
    const index = indexes.get(name);
    if (!index) throw new StoreError('IndexNotFound', `cannot find index ${name} for ns ${ns}`);
    return index;
  }
  if (!isPlainObject(keyPattern)) throw new StoreError('InvalidOptions', 'Key pattern must be an object.');
  const wanted = JSON.stringify(keyPattern);
  const index = [...indexes.values()].find((i) => JSON.stringify(i.spec.key) === wanted);
  if (!index) throw new StoreError('IndexNotFound', `cannot find index ${wanted} for ns ${ns}`);
  return index;
}
