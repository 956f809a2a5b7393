import type { FastifyRequest } from 'fastify';
import { coerceQuery, inspectRaw, invalidInput, validateInput } from '../validation';
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
 * Assembles a route's input from path parameters, query and JSON body, and validates it:
 * each part is inspected raw first; query values are coerced to the declared types; on GET the
 * query wins over the body, elsewhere the body wins over the query; path parameters win over both.
 */
export async function buildRestInput<T extends object>(
  route: RouteDefinition<T>,
  request: FastifyRequest,
): Promise<T | undefined> {
  // A route without input reads nothing from the request, so there is nothing to check either.
  if (!route.input) return undefined;
  const body: unknown = request.body;
  const rawErrors = [
    ...inspectRaw(request.query),
    ...inspectRaw(body),
    ...inspectRaw(request.params),
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
