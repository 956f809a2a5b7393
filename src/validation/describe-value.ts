/** Short, safe rendering of a received value for "expected ..., got ..." messages. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  switch (typeof value) {
    case 'string': {
      const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
      return `string ${JSON.stringify(shown)}${value.length > 40 ? ` (${value.length} characters)` : ''}`;
    }
    case 'number':
      return `number ${String(value)}`;
    case 'boolean':
      return `boolean ${String(value)}`;
    case 'object':
      return value instanceof Date
        ? `date ${Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString()}`
        : 'an object';
    default:
      return typeof value;
  }
}
