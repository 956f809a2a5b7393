import type { FastifyRequest } from 'fastify';
import { coerceQuery, inspectRaw, invalidInput, validateInput, valueBudget } from '../validation';
import type { InputSource } from '../validation';
import type { RouteDefinition } from './route-definition';

type Plain = Record<string, unknown>;

function setOwn(target: Plain, key: string, value: unknown): void {
  // defineProperty, not assignment: a `__proto__` key must stay a key (and be rejected), never a prototype.
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/** `metrics[metric_name]=x` → `{ metrics: { metric_name: 'x' } }`; other keys stay as they are. */
export function expandBracketKeys(query: Plain): Plain {
  const out: Plain = {};
  for (const key of Object.keys(query)) {
    const match = /^([^[\]]+)\[([^[\]]+)\]$/.exec(key);
    if (!match) {
      setOwn(out, key, query[key]);
      continue;
    }
    const [, outer, inner] = match;
    const existing = Object.prototype.hasOwnProperty.call(out, outer) ? out[outer] : undefined;
    const nested: Plain =
      existing !== null && typeof existing === 'object' && !Array.isArray(existing)
        ? (existing as Plain)
        : {};
    setOwn(nested, inner, query[key]);
    setOwn(out, outer, nested);
  }
  return out;
}

function asPlain(value: unknown): Plain {
  return value !== null && typeof value === 'object' ? (value as Plain) : {};
}

function merge(...layers: Plain[]): Plain {
  const out: Plain = {};
  for (const layer of layers) for (const key of Object.keys(layer)) setOwn(out, key, layer[key]);
  return out;
}

/**
 * The size a body came in: its Content-Length, or for a chunked body the most it may have been
 * (the route's body limit).
 */
function bodyBytes(request: FastifyRequest): number {
  const length = Number(request.headers['content-length']);
  return Number.isSafeInteger(length) && length >= 0 ? length : request.routeOptions.bodyLimit;
}

/**
 * Assembles a route's input from path parameters, query and JSON body, and validates it:
 * each part is inspected raw first, within a budget of values that grows with the bytes it came
 * in (the URL for the query and path, Content-Length for the body), so that whatever follows
 * works on a bounded input; query values are coerced to the declared types; on GET the
 * query wins over the body, elsewhere the body wins over the query; path parameters win over both.
 */
export async function buildRestInput<T extends object>(
  route: RouteDefinition<T>,
  request: FastifyRequest,
): Promise<T | undefined> {
  // A route without input reads nothing from the request, so there is nothing to check either.
  if (!route.input) return undefined;
  const body: unknown = request.body;
  const urlBudget = { maxValues: valueBudget(request.url.length) };
  const rawErrors = [
    ...inspectRaw(request.query, '', urlBudget),
    ...inspectRaw(body, '', { maxValues: valueBudget(bodyBytes(request)) }),
    ...inspectRaw(request.params, '', urlBudget),
  ];
  const source: InputSource = body === undefined ? 'query' : 'body';
  if (rawErrors.length > 0) throw invalidInput(source, rawErrors);
  if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) {
    throw invalidInput('body', [{ field: '(body)', message: 'expected a JSON object' }]);
  }
  const query = coerceQuery(route.input, expandBracketKeys(asPlain(request.query)));
  const params = asPlain(request.params);
  const merged =
    route.method === 'GET'
      ? merge(asPlain(body), query, params)
      : merge(query, asPlain(body), params);
  return validateInput(route.input, merged, { source });
}
