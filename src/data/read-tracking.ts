import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestData } from './request-data';
import type { Scope } from './scopes';

/**
 * The request a read belongs to, wherever in its call tree the read happens (a service's own
 * query, a loader's batch): an answer kept whole depends on exactly the scopes its computation
 * read, so a write to any other scope leaves it kept. The storage holds nothing itself; each
 * request runs with its own RequestData, so two apps in one process never share one.
 */
const current = new AsyncLocalStorage<RequestData>();

/** Runs `work` with `data` noting the scopes it reads. */
export function trackReads<T>(data: RequestData, work: () => T): T {
  return current.run(data, work);
}

/** Records a read of `scope` by the request this call belongs to, if any. */
export function noteRead(scope: Scope): void {
  current.getStore()?.noteRead(scope);
}
