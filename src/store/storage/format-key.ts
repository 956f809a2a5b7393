import type { Document } from 'bson';

/** Renders a key the way mongod prints it in E11000 messages: `{ email: "a@b.c" }`. */
export function formatKeyValue(doc: Document): string {
  const fields = Object.entries(doc).map(([k, v]) => `${k}: ${formatValue(v)}`);
  return fields.length ? `{ ${fields.join(', ')} }` : '{}';
}

/** A value as mongod prints it in error messages (`"a"`, `[ 1, 2 ]`, `{ b: 1 }`). */
export function formatValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v !== 'object') return String(v);
  if (v instanceof Date) return `new Date(${v.getTime()})`;
  if (Array.isArray(v)) return v.length ? `[ ${v.map(formatValue).join(', ')} ]` : '[]';
  const bsonType = (v as { _bsontype?: string })._bsontype;
  if (bsonType === 'ObjectId')
    return `ObjectId('${(v as { toHexString(): string }).toHexString()}')`;
  if (bsonType) return String(v);
  return formatKeyValue(v as Document);
}
