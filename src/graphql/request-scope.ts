import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import type { RequestContext } from '../context/request-context';

/**
 * Internal: the request id an error was raised in, for formatError, which Apollo calls without the
 * context. Errors are tagged where the id is known (the errors plugin below, the context function),
 * rather than the id being kept in an AsyncLocalStorage scope: that turns on promise hooks for the
 * whole process, which cost every request (REST too) a few percent.
 */
const requestIds = new WeakMap<object, string>();

/** Tags an error, and the errors graphql-js or Apollo wrapped in it, with a request id. */
export function tagRequestId(error: unknown, requestId: string): void {
  for (
    let current = error, depth = 0;
    current !== null && typeof current === 'object' && depth < 6;
    depth += 1
  ) {
    if (!requestIds.has(current)) requestIds.set(current, requestId);
    current = current instanceof GraphQLError ? current.originalError : undefined;
  }
}

/** The request id an error (or one it wraps) was tagged with, if any. */
export function requestIdOf(error: unknown): string | undefined {
  for (
    let current = error, depth = 0;
    current !== null && typeof current === 'object' && depth < 6;
    depth += 1
  ) {
    const id = requestIds.get(current);
    if (id !== undefined) return id;
    current = current instanceof GraphQLError ? current.originalError : undefined;
  }
  return undefined;
}

/** Tags every error an operation meets (parsing, validation, the guard, execution) before Apollo formats it. */
export function requestIdPlugin(): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart({ contextValue }) {
      return {
        async didEncounterErrors({ errors }) {
          for (const error of errors) tagRequestId(error, contextValue.requestId);
        },
      };
    },
  };
}
