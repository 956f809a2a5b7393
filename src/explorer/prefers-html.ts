const JSON_TYPES = new Set(['application/json', 'application/graphql-response+json']);

/** q-value of the best Accept entry matching `test`; 0 when none does. */
function bestQuality(accept: string, test: (type: string) => boolean): number {
  let best = 0;
  for (const part of accept.split(',')) {
    const [rawType, ...params] = part.trim().split(';');
    const type = (rawType ?? '').trim().toLowerCase();
    if (!test(type)) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    if (Number.isFinite(quality) && quality > best) best = quality;
  }
  return best;
}

/**
 * True when an `Accept` header asks for a page rather than a GraphQL result: it names `text/html`
 * explicitly and ranks it above every JSON type. Browsers navigating to `/graphql` do; GraphQL
 * clients (`application/graphql-response+json`, `application/json`, `*\/*`) do not.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const html = bestQuality(accept, (type) => type === 'text/html');
  if (html === 0) return false;
  return html > bestQuality(accept, (type) => JSON_TYPES.has(type));
}
