/**
 * DataLoader batch functions must answer one value per key, in key order. A database answers in
 * its own order and leaves misses out; these helpers put the rows back in key order.
 */

export interface OrderByKeysOptions<K> {
  /** How a key is compared with `rowKey(row)`; default `String(key)`. */
  keyOf?: (key: K) => string;
  /** What a key without a row resolves to; default null. Return an Error to reject that key only. */
  onMissing?: (key: K) => Error | null;
}

/** One row (or null / Error) per key, in key order. When several rows share a key the first wins. */
export function orderByKeys<K, V>(
  keys: readonly K[],
  rows: readonly V[],
  rowKey: (row: V) => string,
  options: OrderByKeysOptions<K> = {},
): Array<V | Error | null> {
  const keyOf = options.keyOf ?? ((key: K) => String(key));
  const onMissing = options.onMissing ?? (() => null);
  const byKey = new Map<string, V>();
  for (const row of rows) {
    const key = rowKey(row);
    if (!byKey.has(key)) byKey.set(key, row);
  }
  return keys.map((key) => byKey.get(keyOf(key)) ?? onMissing(key));
}

/** All rows per key (one-to-many: a team's members), in key order; a key without rows gets []. */
export function groupByKeys<K, V>(
  keys: readonly K[],
  rows: readonly V[],
  rowKey: (row: V) => string,
  keyOf: (key: K) => string = (key) => String(key),
): V[][] {
  const byKey = new Map<string, V[]>();
  for (const row of rows) {
    const key = rowKey(row);
    const group = byKey.get(key);
    if (group) group.push(row);
    else byKey.set(key, [row]);
  }
  return keys.map((key) => byKey.get(keyOf(key)) ?? []);
}
