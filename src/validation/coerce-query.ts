import 'reflect-metadata';
import { getMetadataStorage } from 'class-validator';
import type { ClassType } from './class-type';

const NUMERIC = /^-?(\d+(\.\d+)?|\.\d+)([eE][+-]?\d+)?$/;
const NUMBER_RULES = new Set(['isInt', 'isNumber', 'min', 'max', 'isPositive', 'isNegative']);

type Kind = 'number' | 'boolean' | 'array' | 'other';

/**
 * The kind a property expects: from its TypeScript design type when emitted, else from its
 * class-validator rules (`limit = 20` has no emitted design type under isolatedModules).
 */
function kindOf(cls: ClassType, key: string): Kind {
  const type: unknown = Reflect.getMetadata('design:type', cls.prototype, key);
  if (type === Number) return 'number';
  if (type === Boolean) return 'boolean';
  if (type === Array) return 'array';
  const rules = getMetadataStorage()
    .getTargetValidationMetadatas(cls, '', true, false)
    .filter((m) => m.propertyName === key);
  if (rules.some((m) => m.name === 'isArray' || m.each === true)) return 'array';
  if (rules.some((m) => m.name === 'isBoolean')) return 'boolean';
  if (rules.some((m) => m.name !== undefined && NUMBER_RULES.has(m.name))) return 'number';
  return 'other';
}

function coerceOne(kind: Kind, value: unknown): unknown {
  if (kind === 'number' && typeof value === 'string' && NUMERIC.test(value.trim())) {
    // `1e999` parses to Infinity: leave such text as it came, to be rejected by name.
    const parsed = Number(value.trim());
    return Number.isFinite(parsed) ? parsed : value;
  }
  if (kind === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  if (kind === 'array') {
    // `metrics=a,b`, repeated `metrics=a&metrics=b`, or both: one flat list.
    const parts = Array.isArray(value) ? value : [value];
    return parts.flatMap((part) =>
      typeof part === 'string'
        ? part
            .split(',')
            .map((s) => s.trim())
            .filter((s) => s !== '')
        : [part],
    );
  }
  // Anything else stays as it came, so validation can say what was expected and what came.
  return value;
}

/**
 * Query strings carry only text: turns the values of number, boolean and list properties of
 * `cls` into those types when they parse cleanly; everything else is left for validation.
 */
export function coerceQuery(
  cls: ClassType,
  query: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(query)) {
    Object.defineProperty(out, key, {
      value: coerceOne(kindOf(cls, key), query[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
