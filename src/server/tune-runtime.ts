import { setFlagsFromString } from 'node:v8';

/**
 * V8 settings for the long-running gateway process, applied first thing by the entry (and by the
 * benchmark's gateway process, which runs the gateway as shipped).
 *
 * Allocation-site pretenuring off. V8 starts allocating the objects of a code site directly in the
 * old generation once most of them survived young collections. Under GraphQL load (requests of
 * several milliseconds that allocate a lot) that comes true of sites every request goes through
 * (Node's and fastify's per-request objects, the gateway's request-scoped ones), and from then on
 * the short-lived objects of every request land in the old generation: with the dashboard query
 * served first, a cached `GET /pipelines` saw scavenges grow from 1 to 7 ms, a full collection
 * every few seconds, and a tenth less throughput (`--trace-gc`, `npm run bench`). The GraphQL
 * cases do not lose by it. The flag is read when V8 decides, so setting it before any load is enough.
 */
export function tuneRuntime(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
