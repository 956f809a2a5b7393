import { GraphQLError } from 'graphql';
import { ErrorCode, HTTP_STATUS } from './error-code';

/** One invalid input field, named by its path in the input (`memberOf.team_id`, `targets[3]`). */
export interface FieldError {
  field: string;
  message: string;
}

export interface ErrorOptions {
  /** Invalid fields, for BAD_USER_INPUT. Rendered as `errors` in the REST envelope. */
  fieldErrors?: FieldError[];
  /** Extra response headers (`WWW-Authenticate`, `Retry-After`, `Allow`). */
  headers?: Record<string, string>;
}

/**
 * Base of every error a client may see. It is a GraphQLError so resolvers can throw it as is;
 * the REST layer renders the same object as the documented envelope. Anything that is not an
 * ErrorWithCode is internal and is replaced by a generic 500 at the edge.
 */
export class ErrorWithCode extends GraphQLError {
  readonly code: ErrorCode;
  readonly status: number;
  readonly fieldErrors: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(message: string, code: ErrorCode, options: ErrorOptions = {}) {
    const status = HTTP_STATUS[code];
    const headers = options.headers ?? {};
    super(message, {
      extensions: {
        code,
        http: { status, headers: new Map(Object.entries(headers)) },
        ...(options.fieldErrors ? { errors: options.fieldErrors } : {}),
      },
    });
    this.name = new.target.name;
    this.code = code;
    this.status = status;
    this.fieldErrors = options.fieldErrors;
    this.headers = headers;
  }
}
