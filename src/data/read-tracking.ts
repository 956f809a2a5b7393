import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestData } from './request-data';
import type { Scope } from './scopes';

/**
 * An answer kept whole depends on exactly the scopes its computation read, so a write to any other
 * scope leaves it kept. Reads are noted explicitly, on the request's own RequestData, before they
 * are made: VersionedCache notes every read through it, and a service that queries a mutable model
 * directly calls `ctx.data.noteRead(scope)` first.
 *
 * Why not note them implicitly, from the models' read hooks, with an AsyncLocalStorage carrying
 * the request: on Node 20 and 22 an AsyncLocalStorage in use turns on promise hooks for every
 * promise of the process, which cost about a quarter of the CPU of an answer computed again after
 * a write (a metrics read: ~150 µs against ~112 µs).
 *
 * That noting is explicit makes forgetting one possible, and a forgotten note would keep an answer
 * past a write. So with READ_TRACKING_CHECK=1 (the test suites set it, jest.config.js) the
 * computation of every keepable answer runs inside an AsyncLocalStorage after all, and each read
 * through a versioned model checks that its request noted the scope first: an unnoted read throws,
 * so the request fails and its test with it.
 */
const checking = process.env.READ_TRACKING_CHECK === '1' ? new AsyncLocalStorage<RequestData>() : undefined;

/**
 * The comment of reads that no request depends on through a scope: committed snapshots by id,
 * which never change once committed.
 */
export const IMMUTABLE_READ_COMMENT = 'pipeline-gateway committed snapshot';

/** Runs `work`, the computation of an answer that may be kept for `data`'s request. */
export function trackReads<T>(data: RequestData, work: () => T): T {
  return checking === undefined ? work() : checking.run(data, work);
}

/**
 * Called by each read through a model of `scope` (versions-document.ts). When checking, a read
 * made for a keepable answer whose request has not noted `scope` throws.
 */
export function checkReadNoted(scope: Scope, comment: unknown): void {
  const data = checking?.getStore();
  if (data === undefined || data.hasRead(scope) || comment === IMMUTABLE_READ_COMMENT) return;
  throw new Error(`read of '${scope}' not noted for the request: call ctx.data.noteRead('${scope}') before it (read-tracking.ts)`);
}
