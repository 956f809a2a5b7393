import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import type { RequestContext } from '../context/request-context';

/** How deep a chain of wrapped errors is followed. */
const MAX_DEPTH = 6;

function* chainOf(error: unknown): Generator<object> {
  let current = error;
  for (
    let depth = 0;
    current !== null && typeof current === 'object' && depth < MAX_DEPTH;
    depth++
  ) {
    yield current;
    current = current instanceof GraphQLError ? current.originalError : undefined;
  }
}

/**
 * The request id each error was raised in, for formatError, which Apollo calls without the
 * context. Errors are tagged where the id is known (the plugin below, the context function).
 * One per app; entries go with their errors.
 */
export class ErrorRequestIds {
  private readonly ids = new WeakMap<object, string>();

  /** Tags an error, and the errors graphql-js or Apollo wrapped in it, with a request id. */
  tag(error: unknown, requestId: string): void {
    for (const current of chainOf(error))
      if (!this.ids.has(current)) this.ids.set(current, requestId);
  }

  /** The request id an error (or one it wraps) was tagged with, if any. */
  of(error: unknown): string | undefined {
    for (const current of chainOf(error)) {
      const id = this.ids.get(current);
      if (id !== undefined) return id;
    }
    return undefined;
  }

  /** Tags every error an operation meets (parsing, validation, the guard, execution) before Apollo formats it. */
  plugin(): ApolloServerPlugin<RequestContext> {
    return {
      requestDidStart: async ({ contextValue }) => ({
        didEncounterErrors: async ({ errors }) => {
          for (const error of errors) this.tag(error, contextValue.requestId);
        },
      }),
    };
  }
}
