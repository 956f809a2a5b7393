import type { Document } from 'bson';

/**
 * The one table of mongod error codes the embedded store answers with. Names and numbers are
 * mongod's (src/mongo/base/error_codes.yml), so drivers and mongoose react exactly as they would
 * against a real server (e.g. mongoose's duplicate-key handling keys off 11000).
 */
export const ErrorCodes = {
  InternalError: 1,
  BadValue: 2,
  NoSuchKey: 4,
  FailedToParse: 9,
  TypeMismatch: 14,
  AuthenticationFailed: 18,
  IllegalOperation: 20,
  NamespaceNotFound: 26,
  IndexNotFound: 27,
  CursorNotFound: 43,
  Unauthorized: 13,
  NamespaceExists: 48,
  CommandNotFound: 59,
  ImmutableField: 66,
  CannotCreateIndex: 67,
  PathNotViable: 28,
  ConflictingUpdateOperators: 40,
  DollarPrefixedFieldName: 52,
  InvalidOptions: 72,
  InvalidNamespace: 73,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  OperationFailed: 96,
  MechanismUnavailable: 334,
  DocumentValidationFailure: 121,
  IncompatibleCollationVersion: 161,
  InvalidIdField: 53,
  Location40323: 40323,
  Location40324: 40324,
  Location40601: 40601,
  Location51183: 51183,
  Location13113: 13113,
  Location40414: 40414,
  Location40415: 40415,
  Location40571: 40571,
  Location51024: 51024,
  DuplicateKey: 11000,
  Location17419: 17419,
  Location17420: 17420,
  Location10334: 10334,
  Location31249: 31249,
  Location31250: 31250,
  Location31252: 31252,
  Location31253: 31253,
  Location31254: 31254,
  Location31255: 31255,
  Location31256: 31256,
  Location31271: 31271,
  Location31273: 31273,
  Location31274: 31274,
  Location31275: 31275,
  Location31276: 31276,
  Location31308: 31308,
  Location31310: 31310,
  Location51246: 51246,
} as const;

export type ErrorCodeName = keyof typeof ErrorCodes;

/**
 * An error the store turns into `{ ok: 0, errmsg, code, codeName }`. `extra` carries fields
 * mongod adds to particular errors (keyPattern/keyValue for duplicate keys).
 */
export class StoreError extends Error {
  readonly code: number;
  readonly codeName: string;

  constructor(
    codeName: ErrorCodeName,
    message: string,
    readonly extra: Document = {},
  ) {
    super(message);
    this.code = ErrorCodes[codeName];
    // Location codes have no name of their own in mongod: the reply says "Location<code>".
    this.codeName = codeName;
  }

  /** The error reply body. */
  toReply(): Document {
    return { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName, ...this.extra };
  }

  /** The write error entry of insert/update/delete replies (`writeErrors[i]`). */
  toWriteError(index: number): Document {
    return { index, code: this.code, errmsg: this.message, ...this.extra };
  }
}

/**
 * The StoreError for a thrown value that is the client's fault, or null. mingo throws MingoError
 * for unknown operators and malformed expressions: those are bad input (BadValue), or an unknown
 * pipeline stage (40324, mongod's wording).
 */
export function asStoreError(err: unknown): StoreError | null {
  if (err instanceof StoreError) return err;
  if (err instanceof Error && err.constructor.name === 'MingoError') {
    const stage = /(?:unknown|unregistered) pipeline operator:? '?(\$\w+)/i.exec(err.message);
    if (stage)
      return new StoreError('Location40324', `Unrecognized pipeline stage name: '${stage[1]}'`);
    return new StoreError('BadValue', err.message);
  }
  return null;
}

/** Turns anything thrown inside a command into a reply; unknown errors become InternalError. */
export function errorReply(err: unknown): Document {
  const known = asStoreError(err);
  if (known) return known.toReply();
  const message = err instanceof Error ? err.message : String(err);
  return { ok: 0, errmsg: message, code: ErrorCodes.InternalError, codeName: 'InternalError' };
}

export const badValue = (message: string): StoreError => new StoreError('BadValue', message);
export const typeMismatch = (message: string): StoreError =>
  new StoreError('TypeMismatch', message);
