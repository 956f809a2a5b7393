import type { Document } from 'bson';
import { ProcessingMode, type Query } from 'mingo';
import { compileJsonSchema } from './json-schema';

/** mingo's options type, reached through the root entry (node10 resolution has no subpaths). */
export type MingoOptions = NonNullable<ConstructorParameters<typeof Query>[1]>;

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
    ...(collectionResolver ? { collectionResolver } : {}),
  };
}
