import { isPlainObject } from '../storage/document-paths';

/**
 * The values a query path reaches, as mongod's matcher walks it: arrays met on the way are
 * descended element by element (and indexed by a numeric part), and a leaf that is an array
 * offers itself and each of its elements. `test` is asked about each until one passes.
 */
export function someValueAtPath(
  doc: unknown,
  path: string,
  test: (v: unknown) => boolean,
): boolean {
  const leaves: unknown[] = [];
  collectLeaves(doc, path.split('.'), 0, leaves);
  return leaves.some((leaf) => test(leaf) || (Array.isArray(leaf) && leaf.some(test)));
}

function collectLeaves(value: unknown, parts: string[], i: number, out: unknown[]): void {
  if (i === parts.length) {
    out.push(value);
    return;
  }
  const part = parts[i];
  if (Array.isArray(value)) {
    if (/^\d+$/.test(part) && Number(part) < value.length)
      collectLeaves(value[Number(part)], parts, i + 1, out);
    for (const el of value) if (isPlainObject(el)) collectLeaves(el, parts, i, out);
    return;
  }
  if (isPlainObject(value) && Object.hasOwn(value, part))
    collectLeaves(value[part], parts, i + 1, out);
}
