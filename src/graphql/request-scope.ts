import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Internal: the request id of the GraphQL request being executed, for formatError, which Apollo
 * calls without the context (an error may come before the context exists).
 */
export const graphqlRequestScope = new AsyncLocalStorage<{ requestId: string }>();
