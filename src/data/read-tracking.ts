import { AsyncLocalStorage } from 'node:async_hooks';
import type { Scope } from './scopes';

/**
 * The scopes a request has read so far, wherever in its call tree the read happens (a service's
 * own query, a loader's batch, a cache hit): an answer kept whole depends on exactly those, so a
 * write to any other scope leaves it kept. The storage holds nothing itself; each request runs
 * with its own set (RequestData.reads), so two apps in one process never share one.
 */
const current = new AsyncLocalStorage<Set<Scope>>();

/** Runs `work` with `reads` collecting the scopes it reads. */
export function trackReads<T>(reads: Set<Scope>, work: () => T): T {
  return current.run(reads, work);
}

/** Records a read of `scope` by the request this call belongs to, if any. */
export function noteRead(scope: Scope): void {
  current.getStore()?.add(scope);
}
