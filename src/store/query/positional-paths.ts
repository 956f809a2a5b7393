import type { Document } from 'bson';
import { StoreError } from '../errors';
import { isPlainObject } from '../storage/document-paths';
import { formatKeyValue, formatValue } from '../storage/format-key';
import type { Collation } from './collation';
import { ownValue, writeField } from './field-access';
import { compileFilter } from './filter';

/** `$`, `$[]` or `$[<identifier>]`: the path parts that stand for array elements. */
export function isPositional(part: string): boolean {
  return part === '$' || (part.startsWith('$[') && part.endsWith(']'));
}

/** mongod's parse-time rules for positional parts: at most one `$`, and none first. */
export function checkPositionalParts(path: string): void {
  const parts = path.split('.');
  if (parts.filter((p) => p === '$').length > 1) {
    throw new StoreError(
      'BadValue',
      `Too many positional (i.e. '$') elements found in path '${path}'`,
    );
  }
  if (parts[0] === '$') {
    throw new StoreError(
      'BadValue',
      `Cannot have positional (i.e. '$') element in the first position in path '${path}'`,
    );
  }
  if (isPositional(parts[0])) {
    throw new StoreError(
      'BadValue',
      `Cannot have array filter identifier (i.e. '$[<id>]') element in the first position in path '${path}'`,
    );
  }
}

/**
 * mongod's parse-time rules for `arrayFilters`: one identifier per filter, each identifier a
 * lowercase-led alphanumeric name given once, every `$[<id>]` of the paths given a filter, and
 * every filter used by some path.
 */
export function checkArrayFilters(
  paths: string[],
  arrayFilters: Document[],
  update: Document,
): void {
  const given = new Set<string>();
  for (const filter of arrayFilters) {
    const ids = filterIdentifiers(filter);
    if (ids.length !== 1) {
      throw new StoreError(
        'FailedToParse',
        ids.length
          ? `Error parsing array filter :: caused by :: Expected a single top-level field name, found '${ids[0]}' and '${ids[1]}'`
          : 'Cannot use an expression without a top-level field name in arrayFilters',
      );
    }
    if (!/^[a-z][a-zA-Z0-9]*$/.test(ids[0])) {
      throw new StoreError(
        'BadValue',
        `Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found '${ids[0]}'`,
      );
    }
    if (given.has(ids[0]))
      throw new StoreError(
        'FailedToParse',
        `Found multiple array filters with the same top-level field name ${ids[0]}`,
      );
    given.add(ids[0]);
  }
  const used = new Set<string>();
  for (const path of paths) {
    for (const part of path.split('.')) {
      if (!isPositional(part) || part === '$' || part === '$[]') continue;
      const id = part.slice(2, -1);
      if (!given.has(id))
        throw new StoreError(
          'BadValue',
          `No array filter found for identifier '${id}' in path '${path}'`,
        );
      used.add(id);
    }
  }
  for (const id of given) {
    if (!used.has(id))
      throw new StoreError(
        'FailedToParse',
        `The array filter for identifier '${id}' was not used in the update ${formatKeyValue(update)}`,
      );
  }
}

export interface PositionalContext {
  /** The update's query, for `$`. */
  filter?: Document;
  arrayFilters?: Document[];
  /** What the query and the array filters compare strings under (null: bytewise). */
  collation?: Collation | null;
}

/**
 * Turns an update path with positional parts into the concrete paths it stands for in `doc`
 * (`children.$[].n` → `children.0.n`, `children.1.n`). mongod decides which elements a
 * positional part selects on the document as it was before the update, once for all of the
 * update's paths, so this runs before any operator is applied: an earlier `$set` cannot change
 * which elements a later path of the same update reaches.
 */
export function concretePaths(doc: Document, path: string, ctx: PositionalContext): string[] {
  const parts = path.split('.');
  if (!parts.some(isPositional)) return [path];
  const out: string[] = [];
  const walk = (value: unknown, i: number, prefix: string[]): void => {
    if (i === parts.length) {
      out.push(prefix.join('.'));
      return;
    }
    const part = parts[i];
    if (!isPositional(part)) {
      walk(childOf(value, part), i + 1, [...prefix, part]);
      return;
    }
    // mongod looks for the query's match before it looks at the array.
    if (part === '$' && !Array.isArray(value)) throw noPositionalMatch();
    if (!Array.isArray(value)) {
      if (value === undefined) {
        throw new StoreError(
          'BadValue',
          `The path '${prefix.join('.')}' must exist in the document in order to apply array updates.`,
        );
      }
      throw new StoreError(
        'BadValue',
        `Cannot apply array updates to non-array element ${prefix[prefix.length - 1]}: ${formatValue(value)}`,
      );
    }
    for (const index of selectedIndexes(doc, value, part, prefix.join('.'), path, ctx)) {
      walk(value[index], i + 1, [...prefix, String(index)]);
    }
  };
  walk(doc, 0, []);
  return out;
}

function childOf(value: unknown, part: string): unknown {
  if (Array.isArray(value)) return /^\d+$/.test(part) ? value[Number(part)] : undefined;
  return isPlainObject(value) ? ownValue(value, part) : undefined;
}

function selectedIndexes(
  doc: Document,
  arr: unknown[],
  part: string,
  arrayPath: string,
  path: string,
  ctx: PositionalContext,
): number[] {
  if (part === '$[]') return arr.map((_, i) => i);
  if (part === '$')
    return [matchedIndex(doc, arr, arrayPath, ctx.filter ?? {}, ctx.collation ?? null)];
  const id = part.slice(2, -1);
  const filter = arrayFilterFor(id, ctx.arrayFilters ?? []);
  if (!filter)
    throw new StoreError(
      'BadValue',
      `No array filter found for identifier '${id}' in path '${path}'`,
    );
  const query = compileFilter(filter, 'arrayFilters', ctx.collation ?? null);
  return arr.flatMap((element, i) => (query.test({ [id]: element }) ? [i] : []));
}

/** The array filter (`{e: ...}`, `{'e.f': ...}`, `{$or: [{'e.f': ...}, ...]}`) naming identifier `id`. */
function arrayFilterFor(id: string, arrayFilters: Document[]): Document | undefined {
  return arrayFilters.find((f) => filterIdentifiers(f).includes(id));
}

/** The top-level names an array filter's conditions are on, looking inside `$and`/`$or`/`$nor`. */
function filterIdentifiers(filter: Document): string[] {
  const ids = new Set<string>();
  for (const [key, cond] of Object.entries(filter)) {
    if (['$and', '$or', '$nor'].includes(key) && Array.isArray(cond)) {
      for (const sub of cond)
        if (isPlainObject(sub)) for (const id of filterIdentifiers(sub)) ids.add(id);
    } else if (!key.startsWith('$')) {
      ids.add(key.split('.')[0]);
    }
  }
  return [...ids];
}

/**
 * The element `$` stands for: the first one that alone satisfies the whole query (the array
 * replaced by just that element), so conditions combine as they do in mongod (`$elemMatch`,
 * `$and`, `$or`). Where only several elements together satisfy it, the element matching the
 * query's last condition on the array, as mongod keeps the position recorded by the last
 * condition it evaluated. A query with no condition on the array gives `$` nothing to stand for.
 */
function matchedIndex(
  doc: Document,
  arr: unknown[],
  arrayPath: string,
  filter: Document,
  collation: Collation | null,
): number {
  const conditions = conditionsOn(filter, arrayPath);
  if (!conditions.length) throw noPositionalMatch();
  const whole = compileFilter(filter, 'filter', collation);
  let index = arr.findIndex((element) =>
    whole.test(withValue(doc, arrayPath.split('.'), [element])),
  );
  if (index < 0) {
    const last = compileFilter(conditions[conditions.length - 1], 'filter', collation);
    index = arr.findIndex((element) => last.test(withValue(doc, arrayPath.split('.'), [element])));
  }
  if (index < 0) throw noPositionalMatch();
  return index;
}

/** A shallow copy of `value` with `parts` leading to `replacement`. */
function withValue(value: unknown, parts: string[], replacement: unknown): Document {
  if (parts.length === 0) return replacement as Document;
  const [head, ...rest] = parts;
  if (Array.isArray(value)) {
    const copy = value.slice();
    copy[Number(head)] = withValue(value[Number(head)], rest, replacement);
    return copy as unknown as Document;
  }
  const copy: Document = isPlainObject(value) ? { ...value } : {};
  writeField(
    copy,
    head,
    withValue(isPlainObject(value) ? ownValue(value, head) : undefined, rest, replacement),
  );
  return copy;
}

/** The query's conditions on `arrayPath` or a path inside it, at any depth of `$and`/`$or`/`$nor`. */
function conditionsOn(filter: Document, arrayPath: string): Document[] {
  const out: Document[] = [];
  for (const [key, cond] of Object.entries(filter)) {
    if ((key === '$and' || key === '$or' || key === '$nor') && Array.isArray(cond)) {
      for (const sub of cond) if (isPlainObject(sub)) out.push(...conditionsOn(sub, arrayPath));
    } else if (key === arrayPath || key.startsWith(`${arrayPath}.`)) {
      out.push({ [key]: cond });
    }
  }
  return out;
}

const noPositionalMatch = (): StoreError =>
  new StoreError(
    'BadValue',
    'The positional operator did not find the match needed from the query.',
  );
