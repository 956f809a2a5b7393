import type { Document } from 'bson';
import type { Query } from './mingo';
import { StoreError } from '../errors';
import { isPlainObject } from '../storage/document-paths';
import { describeType } from './filter';
import { mingoOptions } from './mingo-options';
import { storedQuery } from './stored-query';

const LEVELS = ['off', 'strict', 'moderate'];
const ACTIONS = ['error', 'warn'];

/**
 * A collection's `validator` with its `validationLevel` and `validationAction`, as mongod applies
 * them to inserts and updates: the validator is a query filter (with `$jsonSchema`), "moderate"
 * leaves alone updates of documents that already failed it, "warn" lets every write through.
 */
export class DocumentValidator {
  private constructor(
    private readonly query: Query,
    private readonly level: string,
    private readonly action: string,
  ) {}

  /** The validator of a collection's options, or null when it has none or it is off. */
  static of(options: Document | undefined): DocumentValidator | null {
    if (!options || options.validator === undefined) return null;
    let known = compiled.get(options);
    if (known === undefined) {
      const level = (options.validationLevel as string | undefined) ?? 'strict';
      known =
        level === 'off'
          ? null
          : new DocumentValidator(
              compileValidator(options.validator, 'validator'),
              level,
              (options.validationAction as string | undefined) ?? 'error',
            );
      compiled.set(options, known);
    }
    return known;
  }

  /**
   * mongod's refusal of `doc`, or null when it may be written. `previous`: the stored version an
   * update replaces.
   */
  check(doc: Document, previous?: Document): StoreError | null {
    if (this.action === 'warn') return null;
    if (this.level === 'moderate' && previous && !this.query.test(previous)) return null;
    if (this.query.test(doc)) return null;
    return new StoreError('DocumentValidationFailure', 'Document failed validation', {
      errInfo: { failingDocumentId: doc._id },
    });
  }
}

// Compiled once per options object: collMod replaces the collection's options, never edits them.
const compiled = new WeakMap<Document, DocumentValidator | null>();

/** Checks the validation options of `create`/`collMod` (`command`: its name, for messages). */
export function checkValidationOptions(options: Document, command: string): void {
  if (options.validator !== undefined) compileValidator(options.validator, `${command}.validator`);
  enumeration(options, 'validationLevel', LEVELS, command);
  enumeration(options, 'validationAction', ACTIONS, command);
}

function compileValidator(validator: unknown, field: string): Query {
  if (!isPlainObject(validator)) {
    throw new StoreError(
      'TypeMismatch',
      `BSON field '${field}' is the wrong type '${describeType(validator)}', expected type 'object'`,
    );
  }
  return storedQuery(validator, mingoOptions());
}

function enumeration(options: Document, field: string, values: string[], command: string): void {
  const v = options[field];
  if (v === undefined) return;
  if (typeof v !== 'string') {
    throw new StoreError(
      'TypeMismatch',
      `BSON field '${command}.${field}' is the wrong type '${describeType(v)}', expected type 'string'`,
    );
  }
  if (!values.includes(v)) {
    throw new StoreError(
      'BadValue',
      `Enumeration value '${v}' for field '${command}.${field}' is not a valid value.`,
    );
  }
}
