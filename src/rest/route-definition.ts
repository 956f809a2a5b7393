import type { AuthenticatedContext, RequestContext } from '../context/request-context';
import type { ErrorCode } from '../errors/error-code';
import type { RouteRoles } from './route-roles';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A class-validator decorated input class: the single source of a route's input rules. */
export type InputClass<T extends object> = new () => T;

/** A header of a route's successful answer, documented and made from the answer. */
export interface SuccessHeader {
  name: string;
  /** One line for the OpenAPI document. */
  description: string;
  value(result: Record<string, unknown>): string;
}

interface RouteBase<TInput extends object> {
  method: HttpMethod;
  /** Fastify path syntax: `/teams/members/:member_id`. */
  path: string;
  /** One line for the OpenAPI document. */
  summary: string;
  /** OpenAPI tag: `Pipelines`, `Teams and members`, `Settings`, `Targets`, `Forecasts`, `Tokens`, `Operations`. */
  tag: string;
  /** Validated input; omitted when the route takes none. */
  input?: InputClass<TInput>;
  /**
   * Set on a route whose body is a document of any size (the import): its body may be as large
   * as BODY_LIMIT. Every other route's body is at most `INPUT_LIMITS.maxSmallBodyBytes` (or
   * BODY_LIMIT when smaller).
   */
  largeBody?: true;
  /**
   * JSON Schema of the success body (OpenAPI, and a precompiled serialiser). The body includes the
   * envelope fields where the contract has them.
   */
  response: Record<string, unknown>;
  /**
   * Where the error envelope goes: `root` (the default) is `{ message, success, statusCode, errors? }`;
   * `status` nests it as `{ [emptyKey]: [], status: {...} }` as the metrics and timeseries routes do.
   */
  errorShape?: { kind: 'root' } | { kind: 'status'; emptyKey: string };
  /**
   * Error codes the handler itself can answer with (`NOT_FOUND`, `CONFLICT`, ...), for the OpenAPI
   * document. The ones every route of its kind can give are added there on their own: 400 for
   * input, 401/403 when authenticated, 413/415 for bodies, 429, 500, and 503 once authenticated.
   * Without it, a route with a path parameter is documented as able to answer 404.
   */
  errors?: readonly ErrorCode[];
  /**
   * A read whose 200 answer depends only on the request as sent, the caller, the stored data and
   * the date: its serialised answer is kept while the data is unchanged (src/data/answer-cache.ts).
   * Only GET routes, and only requests without a body, are served from it.
   */
  cacheable?: boolean;
  /**
   * The status of a success when it is not 200: `202` for a route that starts a job and answers
   * before it ends (the handler's `statusCode` says the same).
   */
  successStatus?: 202;
  /** Headers a success carries, made from its answer (`Location` of the job a route started). */
  successHeaders?: readonly SuccessHeader[];
  /**
   * Set on a write whose answer must never be kept (it holds a secret), saying why: an
   * Idempotency-Key on it is a 400 with that reason. Every other write keeps its answer for 24 h
   * for retries with the same key (src/security/idempotency/).
   */
  refusesIdempotencyKey?: string;
}

/**
 * One documented REST route, declared as data. The REST plugin registers it with fastify, the
 * OpenAPI document is generated from it, and the handler is a thin adapter onto one service call.
 * Role checks live in the services; an authenticated route also names the roles that may call it
 * at all (`roles`), checked before its input is read, and its handler gets a caller for certain.
 *
 * Input assembly: path parameters, query parameters and the JSON body are merged into one plain
 * object (query parameters win over the body on GET; path parameters win over both), then
 * validated against `input`: unknown fields, `$`-prefixed keys, `__proto__`/`constructor` keys,
 * objects wider than the key limit, more values than the budget of the bytes they came in, wrong
 * types, NaN/Infinity and over-long strings are rejected with a 400 naming the field.
 */
export type RouteDefinition<TInput extends object = object> = RouteBase<TInput> &
  (
    | {
        authenticated: true;
        /**
         * The roles that may call the route at all (`EVERY_ROLE`, `adminOnly('create teams')`,
         * `onlyRoles([...], message)`): any other caller gets the service's 403 before the request's
         * input is read or validated.
         */
        roles: RouteRoles;
        handler(ctx: AuthenticatedContext, input: TInput): Promise<Record<string, unknown>>;
      }
    | {
        /** Health and docs routes only. */
        authenticated: false;
        handler(ctx: RequestContext, input: TInput): Promise<Record<string, unknown>>;
      }
  );

/** The envelope of a job started and still running: `{ message, success: true, statusCode: 202, ...fields }`. */
export function accepted<T extends Record<string, unknown>>(
  message: string,
  fields: T,
): T & { message: string; success: true; statusCode: 202 } {
  return { message, success: true, statusCode: 202, ...fields };
}

/** The documented success envelope: `{ message, success: true, statusCode: 200, ...fields }`. */
export function ok<T extends Record<string, unknown>>(
  message: string,
  fields: T,
): T & {
  message: string;
  success: true;
  statusCode: 200;
} {
  return { message, success: true, statusCode: 200, ...fields };
}
