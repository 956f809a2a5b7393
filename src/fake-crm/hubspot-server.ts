// A HubSpot-compatible CRM v3 server, holding a dataset it is given: `npm run fake-crm` serves a
// small generated company with it (./cli.ts), the sync tests their own data. It behaves as HubSpot does where the client depends on it: Bearer token check
// (401 with HubSpot's error body), list paging (`limit`, `after`, `paging.next.{after,link}`),
// only the properties asked for, search with filterGroups/sorts/after and the result cap, a rolling
// request window with X-HubSpot-RateLimit-* headers and 429 + Retry-After, and faults on demand.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HubSpotOwner, HubSpotPipeline } from '../import/hubspot.types';

/** A deal as the server keeps it; `properties` are HubSpot's strings (dates ISO 8601). */
export interface StoredDeal {
  id: string;
  properties: Record<string, string | null>;
  createdAt: string;
  updatedAt: string;
  archived?: boolean;
  archivedAt?: string;
}

export interface HubSpotDataset {
  pipelines: HubSpotPipeline[];
  /** Owners with teams; `archived: true` ones are listed only with `archived=true`. */
  owners: HubSpotOwner[];
  deals: StoredDeal[];
  /** The portal's home currency (`companyCurrency` of GET /account-info/v3/details); EUR when left out. */
  companyCurrency?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
}

/**
 * A fault for a coming request: an error status (429 with HubSpot's rate-limit body and an
 * optional `Retry-After` in seconds; 502–504 in HTML as a gateway in front sends them; any other
 * with HubSpot's error body), a connection reset, an answer only after `delayMs`, or a canned
 * `body` (status 200) instead of the real one.
 */
export type Fault =
  | { status: number; retryAfter?: string; policyName?: string }
  | { reset: true }
  | { delayMs: number }
  | { body: unknown };

export interface HubSpotServerOptions {
  /** The private-app token the server accepts. */
  token: string;
  dataset: HubSpotDataset;
  /** Results one search can page through; HubSpot's is 10 000. */
  searchResultCap?: number;
  /** The rolling window of non-search requests: `max` per `intervalMs` (HubSpot: 100–190 per 10 s). */
  rateLimit?: { max: number; intervalMs: number };
  /** Where to listen; default 127.0.0.1 and a free port. */
  host?: string;
  port?: number;
}

export interface HubSpotTestServer {
  /** Base URL, `http://127.0.0.1:<port>`. */
  url: string;
  /** Every request, in order, as it came (faulted ones included). */
  requests: RecordedRequest[];
  /** The data answered; tests may change it between calls. */
  dataset: HubSpotDataset;
  /** The next `times` requests that `match` (default: any) get the fault instead of their answer. */
  fail(
    fault: Fault,
    options?: { times?: number; match?: (request: RecordedRequest) => boolean },
  ): void;
  close(): Promise<void>;
}

// What HubSpot returns for a deal when no `properties` are named.
const DEFAULT_DEAL_PROPERTIES = [
  'amount',
  'closedate',
  'createdate',
  'dealname',
  'dealstage',
  'hs_lastmodifieddate',
  'hs_object_id',
  'pipeline',
];
// What it returns whatever is named.
const ALWAYS_RETURNED = ['createdate', 'hs_lastmodifieddate', 'hs_object_id'];
const SEARCH_OPERATORS = new Set(['EQ', 'NEQ', 'GT', 'GTE', 'LT', 'LTE']);

class HttpAnswer {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

function errorBody(
  category: string,
  message: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { status: 'error', message, correlationId: randomUUID(), category, ...extra };
}

function badRequest(message: string): HttpAnswer {
  return new HttpAnswer(400, errorBody('VALIDATION_ERROR', message));
}

/** Orders ids the way HubSpot does (numerically; these are numbers in HubSpot). */
function compareIds(a: string, b: string): number {
  return /^\d+$/.test(a) && /^\d+$/.test(b) ? Number(a) - Number(b) : a.localeCompare(b);
}

/** A property value or filter value as something comparable: a number (also for dates), else the string. */
function comparable(value: string | null | undefined): number | string | null {
  if (value === null || value === undefined || value === '') return null;
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  const date = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? value : date;
}

function limitOf(raw: string | undefined, fallback: number, max: number): number | HttpAnswer {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max)
    return badRequest(`limit must be from 1 to ${max}, got "${raw}"`);
  return Number(raw);
}

function dealView(deal: StoredDeal, asked: string[] | null): Record<string, unknown> {
  const names =
    asked === null ? DEFAULT_DEAL_PROPERTIES : [...new Set([...asked, ...ALWAYS_RETURNED])];
  const properties: Record<string, string | null> = {};
  for (const name of names)
    properties[name] = name === 'hs_object_id' ? deal.id : (deal.properties[name] ?? null);
  return {
    id: deal.id,
    properties,
    createdAt: deal.createdAt,
    updatedAt: deal.updatedAt,
    archived: deal.archived === true,
    ...(deal.archived === true && deal.archivedAt !== undefined
      ? { archivedAt: deal.archivedAt }
      : {}),
  };
}

function askedProperties(params: URLSearchParams): string[] | null {
  const values = params
    .getAll('properties')
    .flatMap((value) => value.split(','))
    .map((name) => name.trim())
    .filter(Boolean);
  return values.length === 0 ? null : values;
}

/** One page of a cursor-paged list: `after` is the id of the first item of the page asked for. */
function listPage<T>(
  items: T[],
  idOf: (item: T) => string,
  params: URLSearchParams,
  limit: number,
  base: string,
): HttpAnswer {
  const after = params.get('after');
  const start = after === null ? 0 : items.findIndex((item) => compareIds(idOf(item), after) >= 0);
  const from = start < 0 ? items.length : start;
  const results = items.slice(from, from + limit);
  const following = items[from + limit];
  if (following === undefined) return new HttpAnswer(200, { results });
  const next = new URLSearchParams(params);
  next.set('after', idOf(following));
  return new HttpAnswer(200, {
    results,
    paging: { next: { after: idOf(following), link: `${base}?${next}` } },
  });
}

interface SearchFilter {
  propertyName: string;
  operator: string;
  value?: string;
}

function matchesFilter(deal: StoredDeal, filter: SearchFilter): boolean {
  const actual = comparable(
    filter.propertyName === 'hs_object_id' ? deal.id : deal.properties[filter.propertyName],
  );
  const wanted = comparable(filter.value);
  if (filter.operator === 'NEQ') return actual !== wanted;
  if (actual === null || wanted === null) return false;
  if (typeof actual !== typeof wanted) return false;
  switch (filter.operator) {
    case 'EQ':
      return actual === wanted;
    case 'GT':
      return actual > wanted;
    case 'GTE':
      return actual >= wanted;
    case 'LT':
      return actual < wanted;
    default:
      return actual <= wanted;
  }
}

function search(dataset: HubSpotDataset, body: unknown, cap: number): HttpAnswer {
  const request = (body ?? {}) as {
    filterGroups?: unknown;
    sorts?: unknown;
    properties?: unknown;
    limit?: unknown;
    after?: unknown;
  };
  const limit = request.limit === undefined ? 10 : Number(request.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200)
    return badRequest(`limit must be from 1 to 200, got ${JSON.stringify(request.limit)}`);
  const after = request.after === undefined ? 0 : Number(request.after);
  if (!Number.isInteger(after) || after < 0)
    return badRequest(`after must be an offset, got ${JSON.stringify(request.after)}`);
  // HubSpot's cap: no query pages past its 10 000th result.
  if (after >= cap)
    return badRequest(`Search can only page through the first ${cap} results; narrow the filters`);
  const groups = (Array.isArray(request.filterGroups) ? request.filterGroups : []) as {
    filters?: SearchFilter[];
  }[];
  for (const filter of groups.flatMap((group) => group.filters ?? [])) {
    if (!SEARCH_OPERATORS.has(filter.operator))
      return badRequest(`operator ${JSON.stringify(filter.operator)} is not supported`);
  }
  const sorts = (Array.isArray(request.sorts) ? request.sorts : []) as {
    propertyName: string;
    direction?: string;
  }[];
  if (sorts.length > 1) return badRequest('only one sort is allowed');
  let found = dataset.deals.filter(
    (deal) =>
      deal.archived !== true &&
      (groups.length === 0 ||
        groups.some((group) =>
          (group.filters ?? []).every((filter) => matchesFilter(deal, filter)),
        )),
  );
  found = found.slice().sort((a, b) => compareIds(a.id, b.id));
  const sort = sorts[0];
  if (sort !== undefined) {
    const key = (deal: StoredDeal) =>
      comparable(
        sort.propertyName === 'hs_object_id' ? deal.id : deal.properties[sort.propertyName],
      ) ?? '';
    const sign = sort.direction === 'DESCENDING' ? -1 : 1;
    // Stable: equal keys keep id order, as HubSpot's answers do.
    found.sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      return x === y ? 0 : (x < y ? -1 : 1) * sign;
    });
  }
  const asked = Array.isArray(request.properties) ? (request.properties as string[]) : null;
  const results = found.slice(after, after + limit).map((deal) => dealView(deal, asked));
  const more = after + limit < found.length;
  return new HttpAnswer(200, {
    total: found.length,
    results,
    ...(more ? { paging: { next: { after: String(after + limit) } } } : {}),
  });
}

function route(
  dataset: HubSpotDataset,
  method: string,
  url: URL,
  body: unknown,
  cap: number,
  base: string,
): HttpAnswer {
  const params = url.searchParams;
  if (method === 'GET' && url.pathname === '/account-info/v3/details') {
    return new HttpAnswer(200, {
      portalId: 1,
      accountType: 'STANDARD',
      timeZone: 'Europe/Paris',
      companyCurrency: dataset.companyCurrency ?? 'EUR',
      additionalCurrencies: [],
      utcOffset: '+01:00',
      utcOffsetMilliseconds: 3600000,
      uiDomain: 'app.hubspot.com',
      dataHostingLocation: 'eu1',
    });
  }
  if (method === 'GET' && url.pathname === '/crm/v3/pipelines/deals')
    return new HttpAnswer(200, { results: dataset.pipelines });
  if (method === 'GET' && url.pathname === '/crm/v3/owners') {
    const limit = limitOf(params.get('limit') ?? undefined, 100, 500);
    if (limit instanceof HttpAnswer) return limit;
    const archived = params.get('archived') === 'true';
    const owners = dataset.owners
      .filter((owner) => (owner.archived === true) === archived)
      .sort((a, b) => compareIds(a.id, b.id));
    return listPage(owners, (owner) => owner.id, params, limit, `${base}${url.pathname}`);
  }
  if (method === 'GET' && url.pathname === '/crm/v3/objects/deals') {
    const limit = limitOf(params.get('limit') ?? undefined, 10, 100);
    if (limit instanceof HttpAnswer) return limit;
    const archived = params.get('archived') === 'true';
    const asked = askedProperties(params);
    const deals = dataset.deals
      .filter((deal) => (deal.archived === true) === archived)
      .sort((a, b) => compareIds(a.id, b.id));
    const page = listPage(deals, (deal) => deal.id, params, limit, `${base}${url.pathname}`);
    const answer = page.body as { results: StoredDeal[] };
    return new HttpAnswer(200, {
      ...answer,
      results: answer.results.map((deal) => dealView(deal, asked)),
    });
  }
  if (method === 'POST' && url.pathname === '/crm/v3/objects/deals/search')
    return search(dataset, body, cap);
  return new HttpAnswer(
    404,
    errorBody('OBJECT_NOT_FOUND', `No route for ${method} ${url.pathname}`),
  );
}

function readBody(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', reject);
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (text === '') return resolve(undefined);
      try {
        resolve(JSON.parse(text));
      } catch {
        resolve(text);
      }
    });
  });
}

const FAULT_CATEGORIES: Record<number, string> = {
  400: 'VALIDATION_ERROR',
  403: 'MISSING_SCOPES',
  404: 'OBJECT_NOT_FOUND',
  500: 'INTERNAL_ERROR',
};

function sendFault(
  res: http.ServerResponse,
  fault: { status: number; retryAfter?: string; policyName?: string },
): void {
  if (fault.status >= 502 && fault.status <= 504) {
    res
      .writeHead(fault.status, { 'content-type': 'text/html' })
      .end(`<html><body>${fault.status}</body></html>`);
    return;
  }
  const policyName = fault.policyName ?? 'TEN_SECONDLY_ROLLING';
  const body =
    fault.status === 429
      ? errorBody('RATE_LIMITS', `You have reached your ${policyName.toLowerCase()} limit.`, {
          errorType: 'RATE_LIMIT',
          policyName,
        })
      : errorBody(
          FAULT_CATEGORIES[fault.status] ?? 'ERROR',
          `Fault ${fault.status} asked for by the test`,
        );
  const headers: Record<string, string> = { 'content-type': 'application/json;charset=utf-8' };
  if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
  res.writeHead(fault.status, headers).end(JSON.stringify(body));
}

/** Starts the server (on a free loopback port unless told otherwise). */
export async function startHubSpotServer(
  options: HubSpotServerOptions,
): Promise<HubSpotTestServer> {
  const requests: RecordedRequest[] = [];
  const faults: { fault: Fault; times: number; match: (request: RecordedRequest) => boolean }[] =
    [];
  const window: number[] = [];
  const cap = options.searchResultCap ?? 10_000;
  let base = '';

  const send = (res: http.ServerResponse, answer: HttpAnswer): void => {
    res
      .writeHead(answer.status, {
        'content-type': 'application/json;charset=utf-8',
        ...answer.headers,
      })
      .end(JSON.stringify(answer.body));
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    const body = await readBody(req);
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body,
    };
    requests.push(recorded);

    const pending = faults.find((entry) => entry.times > 0 && entry.match(recorded));
    if (pending !== undefined) {
      pending.times -= 1;
      const fault = pending.fault;
      if ('reset' in fault) return void req.socket.destroy();
      if ('delayMs' in fault) {
        // Held until the delay passes or the client goes away (a killed process: nothing to answer).
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, fault.delayMs);
          res.on('close', () => {
            clearTimeout(timer);
            resolve();
          });
        });
      } else if ('body' in fault) return send(res, new HttpAnswer(200, fault.body));
      else return sendFault(res, fault);
      if (res.destroyed) return;
    }

    if (req.headers.authorization !== `Bearer ${options.token}`) {
      return send(
        res,
        new HttpAnswer(
          401,
          errorBody(
            'INVALID_AUTHENTICATION',
            'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
          ),
        ),
      );
    }

    const isSearch = url.pathname.endsWith('/search');
    const headers: Record<string, string> = {};
    if (options.rateLimit !== undefined && !isSearch) {
      const { max, intervalMs } = options.rateLimit;
      const now = Date.now();
      while (window.length > 0 && window[0]! <= now - intervalMs) window.shift();
      if (window.length >= max) {
        const retryAfter = String(Math.max(1, Math.ceil((window[0]! + intervalMs - now) / 1000)));
        return send(
          res,
          new HttpAnswer(
            429,
            errorBody('RATE_LIMITS', 'You have reached your secondly limit.', {
              errorType: 'RATE_LIMIT',
              policyName: 'SECONDLY',
            }),
            {
              'retry-after': retryAfter,
            },
          ),
        );
      }
      window.push(now);
      Object.assign(headers, {
        'x-hubspot-ratelimit-max': String(max),
        'x-hubspot-ratelimit-remaining': String(max - window.length),
        'x-hubspot-ratelimit-interval-milliseconds': String(intervalMs),
      });
    }
    const answer = route(options.dataset, recorded.method, url, body, cap, base);
    send(res, new HttpAnswer(answer.status, answer.body, { ...answer.headers, ...headers }));
  });

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  base = `http://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    dataset: options.dataset,
    fail(fault, { times = 1, match = () => true } = {}) {
      faults.push({ fault, times, match });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
