import type { Document } from 'bson';
import { StoreError } from '../errors';
import { cloneDocument, isPlainObject } from '../storage/document-paths';
import { writeField } from './field-access';
import { describeType } from './filter';
import { Query } from './mingo';
import { mingoOptions } from './mingo-options';
import { retype, viewOf } from './mingo-view';
import { storedQuery } from './stored-query';

/**
 * A find()/findAndModify projection, parsed by mongod's rules (projection_parser.cpp): which
 * entries make it an inclusion or an exclusion, and the find-only operators (`$slice`,
 * `$elemMatch`, `path.$`). Projections of paths (with `$slice` and `$elemMatch`) are applied here,
 * the way mongod's projection executor walks a document; those with aggregation expressions or a
 * positional path are run by mingo (which treats them as a `$project`), then put in mongod's order.
 */
export type ProjectionFn = (doc: Document) => Document;

interface Slice {
  path: string[];
  skip?: number;
  limit: number;
}

/** The projected paths below one level of the output, for putting its fields in mongod's order. */
interface Level {
  /** Fields computed by the projection (expressions, `$elemMatch`), in projection order: they come last. */
  computed: string[];
  children: Map<string, Level>;
}

interface Parsed {
  inclusion: boolean;
  /** Every projected path (the _id mongod adds to an inclusion included). */
  paths: PathTree;
  /** Whether an aggregation expression computes a field: then mingo runs the projection. */
  expressions: boolean;
  /** The part of the projection mingo runs: everything but `$slice`/`$elemMatch`, dotted. */
  mingo: Document;
  slices: Slice[];
  elemMatches: Map<string, Query>;
  root: Level;
  idIncluded: boolean;
  positional: boolean;
}

const newLevel = (): Level => ({ computed: [], children: new Map() });
const MATCH_ALL = new Query({}, mingoOptions());

/**
 * Compiles a projection; `query` is the condition a positional projection (`arr.$`) finds its
 * element with. Null for no projection.
 */
export function compileProjection(
  projection: Document | undefined,
  query: Query = MATCH_ALL,
): ProjectionFn | null {
  if (!projection || Object.keys(projection).length === 0) return null;
  const parsed = parseProjection(projection);
  const { inclusion, slices, elemMatches, root } = parsed;
  const mingoSpec = viewOf({ ...parsed.mingo });
  // mongod includes the path a $slice applies to in an inclusion projection, then slices it.
  if (inclusion) for (const s of slices) writeField(mingoSpec, s.path.join('.'), 1);
  const runMingo = inclusion ? hasInclusions(mingoSpec) : Object.keys(mingoSpec).length > 0;
  const runner = parsed.positional ? query : MATCH_ALL;
  if (!parsed.expressions && !parsed.positional) {
    return (doc) => {
      const out = inclusion
        ? includeFields(doc, parsed.paths.root)
        : excludeFields(doc, parsed.paths.root);
      for (const s of slices) applySlice(out, s, 0);
      if (inclusion) {
        for (const [field, matcher] of elemMatches) {
          const element = firstMatching(doc[field], field, matcher);
          if (element !== undefined) writeField(out, field, [element]);
        }
      }
      return out;
    };
  }
  return (doc) => {
    // On a copy: mingo's exclusion of nested paths edits its input in place. mingo projects the
    // document's view (mingo-view.ts); the stored types go back where values are unchanged.
    let out: Document;
    if (runMingo) {
      const [projected] = runner.find([cloneDocument(viewOf(doc))], mingoSpec).all() as Document[];
      if (!projected) {
        throw new StoreError(
          'Location51246',
          "positional operator '.$' couldn't find a matching element in the array",
        );
      }
      out = retype(projected, doc);
    } else if (!inclusion) out = cloneDocument(doc);
    else out = parsed.idIncluded && doc._id !== undefined ? cloneDocument({ _id: doc._id }) : {};
    for (const s of slices) applySlice(out, s, 0);
    if (!inclusion) return out;
    const matched = new Map<string, unknown>();
    for (const [field, matcher] of elemMatches) {
      const element = firstMatching(doc[field], field, matcher);
      if (element !== undefined) matched.set(field, [element]);
    }
    return ordered(out, doc, root, matched);
  };
}

function hasInclusions(spec: Document): boolean {
  return Object.entries(spec).some(([k, v]) => k !== '_id' || isTruthyFlag(v));
}

function parseProjection(projection: Document): Parsed {
  const tree = new PathTree();
  const parsed: Parsed = {
    inclusion: false,
    paths: tree,
    expressions: false,
    mingo: {},
    slices: [],
    elemMatches: new Map(),
    root: newLevel(),
    idIncluded: true,
    positional: false,
  };
  let type: 'inclusion' | 'exclusion' | undefined;
  let hasSlice = false;
  let hasElemMatch = false;
  let hasMeta = false;
  let hasPositional = false;
  let idIncluded = false;
  let idExcluded = false;
  let idSpecified = false;

  const setType = (next: 'inclusion' | 'exclusion', error: () => StoreError): void => {
    if (type && type !== next) throw error();
    type = next;
  };
  // The output level holding a path's last field (created along the way).
  const levelOf = (path: string[]): Level => {
    let level = parsed.root;
    for (const p of path.slice(0, -1)) {
      let child = level.children.get(p);
      if (!child) level.children.set(p, (child = newLevel()));
      level = child;
    }
    return level;
  };
  const markComputed = (path: string[]): void =>
    void levelOf(path).computed.push(path[path.length - 1]);
  // An included path's parents get levels, so the sub-documents on the way keep their stored order.
  const markIncluded = (path: string[]): void => void levelOf(path);

  const walk = (obj: Document, parents: string[]): void => {
    for (const [key, value] of Object.entries(obj)) {
      if (parents.length === 0 && (key === '_id' || key.startsWith('_id.'))) idSpecified = true;
      const fullKey = [...parents, key].join('.');
      const positional = positionalAt(key);
      const isRootId = parents.length === 0 && key === '_id';
      if (isPlainObject(value)) {
        if (positional)
          throw new StoreError(
            'Location31271',
            'positional projection cannot be used with an expression or sub object',
          );
        const keys = Object.keys(value);
        if (keys.length === 1 && keys[0].startsWith('$')) {
          const op = keys[0];
          const path = [...parents, ...key.split('.')];
          const slice = op === '$slice' ? findSlice(value.$slice) : undefined;
          if (slice) {
            tree.add(path, 'slice');
            parsed.slices.push({ path, ...slice });
            markIncluded(path);
            hasSlice = true;
            continue;
          }
          if (op === '$slice' && !Array.isArray(value.$slice)) {
            throw new StoreError(
              'Location31273',
              '$slice only supports numbers and [skip, limit] arrays',
            );
          }
          if (op === '$elemMatch') {
            if (!isPlainObject(value.$elemMatch)) {
              throw new StoreError(
                'Location31274',
                'elemMatch: Invalid argument, object required, but got ' +
                  describeType(value.$elemMatch),
              );
            }
            if (hasPositional)
              throw new StoreError(
                'Location31255',
                'Cannot specify positional operator and $elemMatch.',
              );
            if (path.length !== 1)
              throw new StoreError(
                'Location31275',
                'Cannot use $elemMatch projection on a nested field.',
              );
            tree.add(path, 'computed');
            parsed.elemMatches.set(
              key,
              storedQuery({ [key]: { $elemMatch: value.$elemMatch } }, mingoOptions()),
            );
            markComputed(path);
            hasElemMatch = true;
            continue;
          }
          // Any other `{$op: ...}` is an aggregation expression, computed into the field.
          const isMeta = op === '$meta';
          if (type === 'exclusion' && !isMeta) {
            throw new StoreError(
              'Location31252',
              'Cannot use expression other than $meta in exclusion projection',
            );
          }
          if (!isMeta) type = 'inclusion';
          hasMeta ||= isMeta;
          parsed.expressions = true;
          tree.add(path, 'computed');
          writeField(parsed.mingo, fullKey, value);
          markComputed(path);
          continue;
        }
        walk(value, [...parents, ...key.split('.')]);
        continue;
      }
      if (isFlag(value)) {
        if (isTruthyFlag(value)) {
          if (positional) {
            if (hasPositional)
              throw new StoreError(
                'Location31276',
                'Cannot specify more than one positional projection per query.',
              );
            if (hasElemMatch)
              throw new StoreError(
                'Location31256',
                'Cannot specify positional operator and $elemMatch.',
              );
            hasPositional = true;
          }
          const path = [...parents, ...(positional ? key.slice(0, positional) : key).split('.')];
          tree.add(path, 'include');
          markIncluded(path);
          if (isRootId) idIncluded = true;
          else
            setType(
              'inclusion',
              () =>
                new StoreError(
                  'Location31253',
                  `Cannot do inclusion on field ${key} in exclusion projection`,
                ),
            );
        } else {
          tree.add([...parents, ...key.split('.')], 'exclude');
          if (isRootId) idExcluded = true;
          else
            setType(
              'exclusion',
              () =>
                new StoreError(
                  'Location31254',
                  `Cannot do exclusion on field ${key} in inclusion projection`,
                ),
            );
        }
        writeField(parsed.mingo, fullKey, value);
        continue;
      }
      if (positional)
        throw new StoreError(
          'Location31308',
          'positional projection cannot be used with a literal',
        );
      if (type === 'exclusion') {
        throw new StoreError(
          'Location31310',
          `Cannot use an expression ${key}: ${JSON.stringify(value)} in an exclusion projection`,
        );
      }
      type = 'inclusion';
      parsed.expressions = true;
      const path = [...parents, ...key.split('.')];
      tree.add(path, 'computed');
      // A literal is an expression: mingo reads a bare value in $project as one too.
      writeField(parsed.mingo, fullKey, value);
      markComputed(path);
    }
  };
  walk(projection, []);

  // mongod's rules for projections with no plain inclusion or exclusion (computeProjectionType).
  if (!type) {
    if (hasSlice) type = idIncluded ? 'inclusion' : 'exclusion';
    else if (hasElemMatch) type = 'inclusion';
    else if (hasMeta) type = idIncluded && !idExcluded ? 'inclusion' : 'exclusion';
    else type = idIncluded ? 'inclusion' : 'exclusion';
  }
  parsed.inclusion = type === 'inclusion';
  parsed.idIncluded = !idExcluded;
  // An inclusion keeps _id unless told otherwise; an exclusion's {_id: 1} only says "keep it".
  if (parsed.inclusion && !idSpecified) tree.add(['_id'], 'include');
  if (!parsed.inclusion && idIncluded) tree.root.delete('_id');
  parsed.positional = hasPositional;
  return parsed;
}

/** What a projected path does at its end: `slice` paths are kept (and cut), `computed` ones are added. */
type Leaf = 'include' | 'exclude' | 'slice' | 'computed';
type PathNode = Map<string, PathNode | Leaf>;

/** The projected paths as mongod's AST holds them: a path may not repeat or run through another. */
class PathTree {
  readonly root: PathNode = new Map();

  add(path: string[], leaf: Leaf): void {
    let level = this.root;
    for (const [i, part] of path.entries()) {
      const child = level.get(part);
      if (i === path.length - 1) {
        if (child) throw new StoreError('Location31250', `Path collision at ${path.join('.')}`);
        level.set(part, leaf);
        return;
      }
      if (typeof child === 'string') {
        throw new StoreError(
          'Location31249',
          `Path collision at ${path.join('.')} remaining portion ${path.slice(i + 1).join('.')}`,
        );
      }
      let next = child;
      if (!next) level.set(part, (next = new Map()));
      level = next;
    }
  }
}

/**
 * An inclusion (mongod's inclusion executor): the included fields in stored order; below a path,
 * documents are walked, array elements that are not documents are dropped, and so is a value
 * that is neither. Stored values are shared, not copied: nothing here edits them.
 */
function includeFields(doc: Document, node: PathNode): Document {
  const out: Document = {};
  for (const key of Object.keys(doc)) {
    const child = node.get(key);
    if (child === 'include' || child === 'slice') writeField(out, key, doc[key]);
    else if (child instanceof Map) {
      const value = includeValue(doc[key], child);
      if (value !== undefined) writeField(out, key, value);
    }
  }
  return out;
}

function includeValue(value: unknown, node: PathNode): unknown {
  if (isPlainObject(value)) return includeFields(value, node);
  if (Array.isArray(value)) return value.filter(isPlainObject).map((el) => includeFields(el, node));
  return undefined;
}

/** An exclusion: every field but the excluded paths; below a path, values that are not documents stay. */
function excludeFields(doc: Document, node: PathNode): Document {
  const out: Document = {};
  for (const key of Object.keys(doc)) {
    const child = node.get(key);
    if (child === 'exclude') continue;
    writeField(out, key, child instanceof Map ? excludeValue(doc[key], child) : doc[key]);
  }
  return out;
}

function excludeValue(value: unknown, node: PathNode): unknown {
  if (isPlainObject(value)) return excludeFields(value, node);
  if (Array.isArray(value))
    return value.map((el) => (isPlainObject(el) ? excludeFields(el, node) : el));
  return value;
}

/** Where a key's positional operator (`a.$`, `a.$.b`) starts, or 0 for none. */
function positionalAt(key: string): number {
  const inner = key.indexOf('.$.');
  if (inner > 0) return inner;
  return key.endsWith('.$') ? key.length - 2 : 0;
}

/**
 * The find `$slice` argument (`n` or `[skip, limit]` with a positive limit); undefined when it is
 * not one, and mongod then reads `{$slice: [...]}` as the aggregation expression.
 */
function findSlice(arg: unknown): { skip?: number; limit: number } | undefined {
  if (isNumber(arg)) return { limit: toInt(arg) };
  if (!Array.isArray(arg) || arg.length !== 2 || !isNumber(arg[0]) || !isNumber(arg[1]))
    return undefined;
  const limit = toInt(arg[1]);
  return limit > 0 ? { skip: toInt(arg[0]), limit } : undefined;
}

function isNumber(v: unknown): boolean {
  if (typeof v === 'number') return true;
  const t = (v as { _bsontype?: string })?._bsontype;
  return t === 'Long' || t === 'Int32' || t === 'Double' || t === 'Decimal128';
}

// mongod reads $slice arguments as 32-bit integers (numberInt): fractions are truncated.
function toInt(v: unknown): number {
  const n = typeof v === 'number' ? v : Number(String(v));
  return Number.isFinite(n) ? Math.trunc(n) : 0;
}

function isFlag(v: unknown): boolean {
  return typeof v === 'boolean' || isNumber(v);
}

function isTruthyFlag(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  return isNumber(v) && toInt(v) !== 0;
}

/**
 * mongod's find `$slice` at a path of the projected document: arrays met before the end are
 * walked element by element (documents only), the array at the end is cut, anything else stays.
 */
function applySlice(target: Document, slice: Slice, depth: number): void {
  const field = slice.path[depth];
  if (!Object.hasOwn(target, field)) return;
  const value = target[field];
  const last = depth === slice.path.length - 1;
  if (Array.isArray(value)) {
    if (last) writeField(target, field, cut(value, slice));
    else for (const el of value) if (isPlainObject(el)) applySlice(el, slice, depth + 1);
  } else if (isPlainObject(value) && !last) {
    applySlice(value, slice, depth + 1);
  }
}

function cut(arr: unknown[], { skip, limit }: Slice): unknown[] {
  if (skip === undefined)
    return limit >= 0 ? arr.slice(0, limit) : arr.slice(Math.max(0, arr.length + limit));
  const start = skip < 0 ? Math.max(0, arr.length + skip) : Math.min(skip, arr.length);
  return arr.slice(start, start + limit);
}

/** The first element of an array the `$elemMatch` condition accepts. */
function firstMatching(value: unknown, field: string, matcher: Query): unknown {
  if (!Array.isArray(value)) return undefined;
  return value.find((el) => matcher.test({ [field]: [el] }));
}

/**
 * An inclusion projection's output in mongod's order: the included fields as they are stored,
 * then the computed ones in projection order (mingo follows the projection's order throughout).
 */
function ordered(
  out: Document,
  source: unknown,
  level: Level,
  computed: Map<string, unknown> = new Map(),
): Document {
  const result: Document = {};
  const isComputed = new Set(level.computed);
  if (isPlainObject(source)) {
    for (const key of Object.keys(source)) {
      if (isComputed.has(key) || !Object.hasOwn(out, key)) continue;
      const child = level.children.get(key);
      writeField(result, key, child ? orderedValue(out[key], source[key], child) : out[key]);
    }
  }
  for (const key of level.computed) {
    if (computed.has(key)) writeField(result, key, computed.get(key));
    else if (Object.hasOwn(out, key) && !Object.hasOwn(result, key))
      writeField(result, key, out[key]);
  }
  for (const key of Object.keys(out))
    if (!Object.hasOwn(result, key)) writeField(result, key, out[key]);
  return result;
}

function orderedValue(out: unknown, source: unknown, level: Level): unknown {
  if (isPlainObject(out)) return ordered(out, source, level);
  if (Array.isArray(out) && Array.isArray(source)) {
    // An inclusion below an array keeps only its document elements, in their order.
    const docs = source.length === out.length ? source : source.filter(isPlainObject);
    return out.map((el, i) => orderedValue(el, docs[i], level));
  }
  return out;
}
