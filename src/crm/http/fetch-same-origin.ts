// Internal to src/crm: one HTTP exchange with a CRM that never leaves the CRM's origin.

/** Redirects followed within one origin before the answer counts as a failure. */
const MAX_REDIRECTS = 3;

/** The CRM answered with a redirect to another origin (or too many within its own): not followed. */
export class RedirectRefusedError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'RedirectRefusedError';
  }
}

/**
 * fetch() with redirects handled here instead of by fetch: one within the same origin (scheme,
 * host and port) is followed, at most MAX_REDIRECTS times, with the same method, headers and body
 * (HTTP's 303 asks for a GET); one to another origin is refused with RedirectRefusedError, so
 * neither the credentials nor the answer of a host the gateway was not pointed at are ever used.
 * The message names the origins, never the path or query (which may hold ids or filters).
 */
export async function fetchSameOrigin(url: URL, init: RequestInit): Promise<Response> {
  let current = url;
  let request = init;
  for (let hop = 0; ; hop += 1) {
    const response = await fetch(current, { ...request, redirect: 'manual' });
    if (response.status < 300 || response.status > 399 || response.status === 304) return response;
    const location = response.headers.get('location');
    // The body of a redirect is never read: release the connection.
    await response.body?.cancel().catch(() => undefined);
    if (location === null) return response;
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw new RedirectRefusedError(response.status, 'a redirect to an unreadable location');
    }
    if (next.origin !== url.origin) {
      throw new RedirectRefusedError(
        response.status,
        `a redirect from ${url.origin} to ${next.origin}, which is not followed`,
      );
    }
    if (hop >= MAX_REDIRECTS)
      throw new RedirectRefusedError(response.status, `more than ${MAX_REDIRECTS} redirects`);
    current = next;
    if (response.status === 303) request = { ...request, method: 'GET', body: undefined };
  }
}
