/**
 * Whether a set of deal pages is the whole list. HubSpot pages a list (and a search) through
 * `paging.next.after`; the last page has none. Pages may be sent in any order, so the rule does not
 * depend on it: when every page sent has a `paging.next.after`, the page after the last one
 * fetched is missing, and so are the deals from there on.
 */
export interface UnfollowedPage {
  /** Path of the page not followed, e.g. `deals[1].paging.next.after` or `deals.paging.next.after`. */
  field: string;
  message: string;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `paging.next.after` cursor of a page, or null when the page is the last one. */
export function nextCursorOf(page: unknown): string | null {
  if (!isObject(page) || !isObject(page.paging) || !isObject(page.paging.next)) return null;
  const after = page.paging.next.after;
  if (typeof after === 'number') return String(after);
  return typeof after === 'string' && after.trim() !== '' ? after : null;
}

/** What the check needs of one page: its `paging.next.after` (null when none) and how many deals it carried. */
export interface PageSummary {
  cursor: string | null;
  sent: number;
}

/**
 * The page whose `paging.next` was not followed, or null when the pages are complete. `pages`
 * summarise the deal pages as sent, in order; `lastTotal` is the last page's `total` as sent;
 * `asArray` says whether they came as an array (paths `deals[i]`) or as one page (`deals`).
 */
export function unfollowedPageOf(
  pages: PageSummary[],
  lastTotal: unknown,
  asArray: boolean,
): UnfollowedPage | null {
  if (pages.length === 0) return null;
  if (pages.some((page) => page.cursor === null)) return null;
  const last = pages.length - 1;
  const field = `${asArray ? `deals[${last}]` : 'deals'}.paging.next.after`;
  const sent = pages.reduce<number>((n, p) => n + p.sent, 0);
  const total =
    typeof lastTotal === 'number' && lastTotal > sent
      ? ` (its total is ${lastTotal} deals; ${sent} were sent)`
      : '';
  const which =
    pages.length === 1 ? 'the only deal page' : `every one of the ${pages.length} deal pages`;
  return {
    field,
    message:
      `${field} is "${pages[last].cursor}" but no page follows it: ${which} has a paging.next, so the deals past it are missing${total}; ` +
      'send every page, following paging.next.after until a page has none',
  };
}
