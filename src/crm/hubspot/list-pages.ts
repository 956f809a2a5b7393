// Internal to src/crm/hubspot: following `paging.next.after` through a list endpoint.
import type { HubSpotPage } from '../../import/hubspot.types';
import { HubSpotRequestError } from './hubspot-errors';
import type { HubSpotHttp, HubSpotRequest } from './hubspot-http';

/** HubSpot's paging block: `{ next: { after, link } }` while more pages follow. */
export interface HubSpotPaging {
  next?: { after?: string; link?: string };
}

/** Checks that a body is a page (`results` an array) and gives its next cursor, if any. */
export function asPage<T>(
  body: unknown,
  call: string,
): { page: HubSpotPage<T>; after: string | undefined } {
  const page = body as { results?: unknown; paging?: HubSpotPaging } | null;
  if (typeof page !== 'object' || page === null || !Array.isArray(page.results)) {
    throw new HubSpotRequestError(null, call, 'the answer has no "results" array');
  }
  const after = page.paging?.next?.after;
  return {
    page: page as HubSpotPage<T>,
    after: typeof after === 'string' && after !== '' ? after : undefined,
  };
}

/**
 * Every page of a GET list endpoint, as HubSpot answers them, in order, each handed on as it
 * arrives (the next one is asked for when the consumer wants it). A cursor answered twice would
 * loop for ever, so it ends the listing with an error instead.
 */
export async function* listPages<T>(
  http: HubSpotHttp,
  request: HubSpotRequest,
): AsyncGenerator<HubSpotPage<T>> {
  const seen = new Set<string>();
  let after: string | undefined;
  for (;;) {
    const call = `${request.method} ${request.path}`;
    const body = await http.send({ ...request, query: { ...request.query, after } });
    const next = asPage<T>(body, call);
    yield next.page;
    if (next.after === undefined) return;
    if (seen.has(next.after))
      throw new HubSpotRequestError(null, call, `paging.next.after "${next.after}" came twice`);
    seen.add(next.after);
    after = next.after;
  }
}
