import type { Document } from 'bson';
import { Context, ProcessingMode, type Query } from 'mingo';
import * as accumulatorOperators from 'mingo/operators/accumulator';
import * as expressionOperators from 'mingo/operators/expression';
import * as pipelineOperators from 'mingo/operators/pipeline';
import * as projectionOperators from 'mingo/operators/projection';
import * as queryOperators from 'mingo/operators/query';
import * as windowOperators from 'mingo/operators/window';
import { DBREF_FIELD_OPERATOR, dbRefFieldOperator } from './dbref-fields';
import { compileJsonSchema } from './json-schema';
import { storeQueryOperators } from './query-operators';

/** mingo's options type, reached through the root entry (node10 resolution has no subpaths). */
export type MingoOptions = NonNullable<ConstructorParameters<typeof Query>[1]>;

/**
 * mingo's operators with the store's own in place of those where mingo differs from mongod.
 * The classes of mingo's root entry would put mingo's operators back on top of these (its
 * defaults win a merge), so the store uses the plain classes of ./mingo, which take this as is.
 */
const STORE_CONTEXT = Context.init({
  accumulator: accumulatorOperators,
  expression: expressionOperators,
  pipeline: pipelineOperators,
  projection: projectionOperators,
  query: { ...queryOperators, ...storeQueryOperators, [DBREF_FIELD_OPERATOR]: dbRefFieldOperator },
  window: windowOperators,
} as Parameters<typeof Context.init>[0]);

/**
 * The mingo settings that make it behave like mongod: strict MongoDB semantics, no script
 * operators (`$where`, `$function`: the store runs no client code), `$jsonSchema` judged by the
 * store's BSON-aware compiler, and no cloning (the store
 * never mutates a stored document in place; updates work on a copy).
 * ObjectIds need no hash/compare hooks: mingo compares same-class objects with a custom
 * toString (ObjectId → hex) by that string, which orders them by their bytes.
 */
export function mingoOptions(collectionResolver?: (name: string) => Document[]): MingoOptions {
  return {
    idKey: '_id',
    useStrictMode: true,
    scriptEnabled: false,
    processingMode: ProcessingMode.CLONE_OFF,
    jsonSchemaValidator: compileJsonSchema,
    context: STORE_CONTEXT,
    ...(collectionResolver ? { collectionResolver } : {}),
  };
}
