/**
 * Parsers for HubSpot property values, which arrive as strings or null. Each answers a typed value
 * or `undefined` for "absent" and throws nothing: callers decide what a bad value means.
 */

/** Trimmed text, or undefined when null, missing or blank. */
export function text(value: unknown): string | undefined {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

export type Parsed<T> =
  { kind: 'absent' } | { kind: 'ok'; value: T } | { kind: 'invalid'; raw: string };

/** A decimal number such as "3000", "5000.00", "-1.5e3"; thousands separators are not numbers. */
export function parseNumber(value: unknown): Parsed<number> {
  const raw = text(value);
  if (raw === undefined) return { kind: 'absent' };
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(raw)) return { kind: 'invalid', raw };
  const number = Number(raw);
  return Number.isFinite(number) ? { kind: 'ok', value: number } : { kind: 'invalid', raw };
}

/** "true"/"false" in any case, or a JSON boolean. */
export function parseBoolean(value: unknown): Parsed<boolean> {
  if (typeof value === 'boolean') return { kind: 'ok', value };
  const raw = text(value);
  if (raw === undefined) return { kind: 'absent' };
  const lower = raw.toLowerCase();
  if (lower === 'true') return { kind: 'ok', value: true };
  if (lower === 'false') return { kind: 'ok', value: false };
  return { kind: 'invalid', raw };
}

/**
 * An instant: ISO 8601 (HubSpot v3: "2024-03-15T10:12:00.000Z", or a bare date "2024-03-15" taken
 * as UTC midnight) or epoch milliseconds as digits (older HubSpot exports).
 */
export function parseDate(value: unknown): Parsed<Date> {
  const raw = text(value);
  if (raw === undefined) return { kind: 'absent' };
  let date: Date;
  if (/^\d{10,14}$/.test(raw)) date = new Date(Number(raw));
  else if (
    /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(raw)
  ) {
    // A date-time without a zone is UTC, as HubSpot means it.
    const withZone =
      /T|\s/.test(raw) && !/(Z|[+-]\d{2}:?\d{2})$/.test(raw)
        ? `${raw.replace(' ', 'T')}Z`
        : raw.replace(' ', 'T');
    date = new Date(withZone);
  } else return { kind: 'invalid', raw };
  return Number.isNaN(date.getTime()) ? { kind: 'invalid', raw } : { kind: 'ok', value: date };
}
