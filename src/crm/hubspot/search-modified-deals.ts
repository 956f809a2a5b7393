// Internal to src/crm/hubspot: reading every deal modified in a time window through the search endpoint.
import type { HubSpotDeal, HubSpotPage } from '../../import/hubspot.types';
import { HubSpotRequestError } from './hubspot-errors';
import type { HubSpotHttp } from './hubspot-http';
import { asPage } from './list-pages';

const SEARCH_PATH = '/crm/v3/objects/deals/search';
const CALL = `POST ${SEARCH_PATH}`;

export interface ModifiedDealsQuery {
  /** Lower bound, inclusive, on `hs_lastmodifieddate`. */
  since: Date;
  /** Upper bound, inclusive; none: up to now. */
  until?: Date;
  properties: readonly string[];
  /** Results per page: 100, the most HubSpot's search answers per request. */
  pageSize: number;
  /** Results one search query can page through: HubSpot stops at 10 000 (a `400` past it). */
  resultCap: number;
}

type Filter = { propertyName: string; operator: 'GTE' | 'LTE' | 'EQ' | 'GT'; value: string };

/**
 * Where the search stands. `window`: modified at or after `from`, sorted by modification time.
 * `tie`: more deals than the cap share the timestamp `at`, so they are read sorted by id instead.
 */
type Cursor =
  { kind: 'window'; from: number } | { kind: 'tie'; at: number; afterId: string | null };

function modifiedAt(deal: HubSpotDeal): number {
  const raw = deal.properties?.hs_lastmodifieddate;
  const ms =
    raw === undefined || raw === null
      ? Number.NaN
      : /^\d+$/.test(raw)
        ? Number(raw)
        : Date.parse(raw);
  if (Number.isNaN(ms))
    throw new HubSpotRequestError(
      null,
      CALL,
      `deal ${deal.id} came without a readable hs_lastmodifieddate ("${raw}")`,
    );
  return ms;
}

function requestBody(
  cursor: Cursor,
  query: ModifiedDealsQuery,
  properties: string[],
  after: string | undefined,
): unknown {
  const filters: Filter[] =
    cursor.kind === 'window'
      ? [{ propertyName: 'hs_lastmodifieddate', operator: 'GTE', value: String(cursor.from) }]
      : [{ propertyName: 'hs_lastmodifieddate', operator: 'EQ', value: String(cursor.at) }];
  if (cursor.kind === 'window' && query.until !== undefined) {
    filters.push({
      propertyName: 'hs_lastmodifieddate',
      operator: 'LTE',
      value: String(query.until.getTime()),
    });
  }
  if (cursor.kind === 'tie' && cursor.afterId !== null)
    filters.push({ propertyName: 'hs_object_id', operator: 'GT', value: cursor.afterId });
  const sortBy = cursor.kind === 'window' ? 'hs_lastmodifieddate' : 'hs_object_id';
  return {
    filterGroups: [{ filters }],
    sorts: [{ propertyName: sortBy, direction: 'ASCENDING' }],
    properties,
    limit: query.pageSize,
    ...(after === undefined ? {} : { after }),
  };
}

/**
 * Every deal whose `hs_lastmodifieddate` lies in [since, until], as search pages handed on as they
 * arrive. One query can page through at most `resultCap` results, so on reaching it the search
 * starts again from the last modification time it has seen; the deals at that very time come
 * again and are left out of the pages (they were handed on already). When more deals than the cap
 * share one timestamp, those are read by id order. A deal modified again while the pages are read
 * may come twice, in an older and a later copy: the import keeps the later one.
 */
export async function* searchModifiedDeals(
  http: HubSpotHttp,
  query: ModifiedDealsQuery,
): AsyncGenerator<HubSpotPage<HubSpotDeal>> {
  const properties = [...new Set([...query.properties, 'hs_lastmodifieddate'])];
  let cursor: Cursor = { kind: 'window', from: query.since.getTime() };
  let after: string | undefined;
  // The ids handed on that were modified at `tiedAt`, the latest time handed on: a restart from
  // that time reads them again. Bounded by how many deals share one timestamp.
  let tiedAt = Number.NEGATIVE_INFINITY;
  let tied = new Set<string>();
  for (;;) {
    const body = await http.send({
      method: 'POST',
      path: SEARCH_PATH,
      body: requestBody(cursor, query, properties, after),
      kind: 'search',
    });
    const { page, after: next } = asPage<HubSpotDeal>(body, CALL);
    const fresh = page.results.filter((deal) => {
      const at = modifiedAt(deal);
      if (at === tiedAt && tied.has(deal.id)) return false;
      if (at > tiedAt) {
        tiedAt = at;
        tied = new Set();
      }
      if (at === tiedAt) tied.add(deal.id);
      return true;
    });
    yield fresh.length === page.results.length ? page : { ...page, results: fresh };
    const last = page.results.at(-1);
    if (next === undefined || last === undefined) {
      if (cursor.kind === 'window') return;
      // The tied timestamp is read out; what is left is strictly later.
      cursor = { kind: 'window', from: cursor.at + 1 };
      after = undefined;
      continue;
    }
    if (!/^\d+$/.test(next))
      throw new HubSpotRequestError(null, CALL, `paging.next.after "${next}" is not an offset`);
    if (Number(next) < query.resultCap) {
      after = next;
      continue;
    }
    // The cap: start a new query past what has been read.
    if (cursor.kind === 'tie') {
      cursor = { kind: 'tie', at: cursor.at, afterId: last.id };
    } else {
      const lastModified = modifiedAt(last);
      cursor =
        lastModified > cursor.from
          ? { kind: 'window', from: lastModified }
          : { kind: 'tie', at: cursor.from, afterId: null };
    }
    after = undefined;
  }
}
