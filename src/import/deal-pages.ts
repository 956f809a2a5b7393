/**
 * The deals of an import as they arrive: pages of HubSpot GET /crm/v3/objects/deals, each in one or
 * more chunks of its `results`, so that no page, however large, need be held whole. A REST body is
 * already in memory and becomes chunks of its pages (`dealPagesOf`); the CLI reads files as streams
 * (read-hubspot-files.ts); a sync hands the pages it fetches one by one.
 */

/** A run of one page's results, in order. */
export interface DealPageChunk {
  /** The page's position among the deal pages, 0-based: the `i` of `deals[i]` in messages. */
  page: number;
  /** The position of `results[0]` in its page's `results`. */
  offset: number;
  results: unknown[];
  /**
   * On a page's last chunk only: the page as sent, with `results` emptied when it was an array (its
   * elements came in the chunks). Anything else sent as a page comes whole here, to be refused.
   */
  shell?: unknown;
}

/** The deal pages of one import, as an async iterable of chunks, pages in order. */
export interface DealPages extends AsyncIterable<DealPageChunk> {
  /** True when the pages came as an array (`deals[i]` in messages), false for one page (`deals`). */
  readonly asArray: boolean;
  /** Deals expected, when the source knows (for progress); null when it cannot tell in advance. */
  readonly expected: number | null;
}

import { legacyShapeOf } from './legacy-shapes';

/** How many results of an in-memory page go into one chunk. */
const CHUNK = 2000;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The chunks of one page held in memory; a legacy body or anything not a page comes whole as the shell. */
function* chunksOf(page: unknown, index: number): Iterable<DealPageChunk> {
  if (!isObject(page) || !Array.isArray(page.results) || legacyShapeOf(page) !== null) {
    yield { page: index, offset: 0, results: [], shell: page };
    return;
  }
  const results = page.results;
  const shell = { ...page, results: [] };
  if (results.length === 0) yield { page: index, offset: 0, results, shell };
  for (let offset = 0; offset < results.length; offset += CHUNK) {
    const last = offset + CHUNK >= results.length;
    yield {
      page: index,
      offset,
      results: results.slice(offset, offset + CHUNK),
      ...(last ? { shell } : {}),
    };
  }
}

/** The chunks of deal pages held in memory, one page or an array of pages, in order. */
export function* pageChunks(deals: unknown): Iterable<DealPageChunk> {
  const pages = Array.isArray(deals) ? deals : [deals];
  for (let i = 0; i < pages.length; i += 1) yield* chunksOf(pages[i], i);
}

/** Deal pages held in memory (a REST body, a test): one page, or an array of pages. */
export function dealPagesOf(deals: unknown): DealPages {
  const pages = Array.isArray(deals) ? deals : [deals];
  let expected = 0;
  for (const page of pages)
    if (isObject(page) && Array.isArray(page.results)) expected += page.results.length;
  return {
    asArray: Array.isArray(deals),
    expected,
    async *[Symbol.asyncIterator]() {
      yield* pageChunks(deals);
    },
  };
}

/**
 * Deal pages from an async iterable of whole pages (the sync's client yields them as it fetches):
 * an array of pages, so messages name `deals[i]`.
 */
export function dealPagesFrom(
  pages: AsyncIterable<unknown>,
  expected: number | null = null,
): DealPages {
  return {
    asArray: true,
    expected,
    async *[Symbol.asyncIterator]() {
      let index = 0;
      for await (const page of pages) yield* chunksOf(page, index++);
    },
  };
}

/** Whether a value is a DealPages stream rather than deals held in memory. */
export function isDealPages(value: unknown): value is DealPages {
  return (
    typeof value === 'object' &&
    value !== null &&
    Symbol.asyncIterator in value &&
    typeof (value as DealPages).asArray === 'boolean'
  );
}
