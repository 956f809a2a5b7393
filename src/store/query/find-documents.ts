import type { Document } from 'bson';
import { StoreError } from '../errors';
import type { Collection } from '../storage/collection';
import { isPlainObject } from '../storage/document-paths';
import { planAccess, type Access } from './access';
import { isSimpleIdQuery } from './candidates';
import type { Collation } from './collation';
import { compileFilter, describeType } from './filter';
import { originalOf, viewOf } from './mingo-view';
import { compileProjection } from './projection';

export interface FindSpec {
  filter?: unknown;
  projection?: unknown;
  sort?: unknown;
  skip?: number;
  /** 0 = no limit. */
  limit?: number;
  hint?: unknown;
  /** String comparisons of the filter and sort; null or absent: binary. */
  collation?: Collation | null;
}

/** A find's results with how it reached them (for explain). */
export interface FindRun {
  docs: Document[];
  access: Access;
  /** Documents the filter was applied to (counted only when asked for). */
  docsExamined: number;
}

/** Runs a find over one collection (missing collection → no documents), all results at once. */
export function findDocuments(coll: Collection | undefined, spec: FindSpec): Document[] {
  return runFind(coll, spec).docs;
}

/** Runs a find and reports its access path; `countExamined` counts the documents it looked at. */
export function runFind(
  coll: Collection | undefined,
  spec: FindSpec,
  countExamined = false,
): FindRun {
  const collation = spec.collation ?? null;
  if (!countExamined && isIdHackOnly(spec)) {
    // The `_id` map's key equality is mongod's equality when no collation applies, so the one
    // document it names is the answer as it stands: no filter to compile and run over it.
    const access = planAccess(coll, spec.filter as Document, { idHack: true });
    if (access.stage === 'IDHACK' || access.stage === 'EOF')
      return { docs: [...access.docs], access, docsExamined: 0 };
  }
  const query = compileFilter(spec.filter, 'filter', collation);
  const project = compileProjection(optionalObject(spec.projection, 'projection'), query);
  // Sort directions of any numeric type read as numbers (mongosh sends doubles).
  let sort = viewOf(optionalObject(spec.sort, 'sort'));
  const filter = (spec.filter as Document) ?? {};
  // A $natural sort is a collection scan in that direction (-1: newest first), as in mongod.
  const natural = sort && '$natural' in sort ? (sort.$natural === -1 ? -1 : 1) : undefined;
  if (sort && natural) {
    const { $natural: _n, ...rest } = sort;
    sort = Object.keys(rest).length ? rest : undefined;
  }
  const hint = spec.hint ?? (natural ? { $natural: natural } : undefined);
  const access = planAccess(coll, filter, {
    hint,
    idHack: !spec.skip && !natural,
    collated: collation !== null,
  });
  const run: FindRun = { docs: [], access, docsExamined: 0 };
  if (!coll) return run;
  let source: Iterable<Document> = countExamined
    ? counting(access.docs, () => (run.docsExamined += 1))
    : access.docs;
  // With another hint as well, the hinted index's order is walked backwards.
  if (natural === -1 && spec.hint !== undefined) source = [...source].reverse();
  if (sort) validateSort(sort);
  let cursor = query.find(viewsOf(source));
  if (sort) cursor = cursor.sort(sort as Record<string, 1 | -1>);
  if (spec.skip) cursor = cursor.skip(spec.skip);
  if (spec.limit) cursor = cursor.limit(spec.limit);
  // mingo filtered and sorted the documents' views: the stored documents are the results.
  const page = (cursor.all() as Document[]).map(originalOf);
  run.docs = project ? page.map(project) : page;
  return run;
}

/** A simple `_id` equality (isSimpleIdQuery) with nothing but a limit around it. */
function isIdHackOnly(spec: FindSpec): boolean {
  const { filter, projection, sort, hint, collation, skip } = spec;
  if (collation || skip || hint !== undefined || !isPlainObject(filter) || !isSimpleIdQuery(filter))
    return false;
  const empty = (v: unknown) =>
    v === undefined || v === null || (isPlainObject(v) && Object.keys(v).length === 0);
  return empty(projection) && empty(sort);
}

/** The documents' views (mingo-view.ts), made as mingo asks for them. */
function* viewsOf(docs: Iterable<Document>): Iterable<Document> {
  for (const doc of docs) yield viewOf(doc);
}

function* counting(docs: Iterable<Document>, seen: () => void): Iterable<Document> {
  for (const doc of docs) {
    seen();
    yield doc;
  }
}

function optionalObject(v: unknown, name: string): Document | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isPlainObject(v)) {
    throw new StoreError(
      'TypeMismatch',
      `"${name}" had the wrong type. Expected object, found ${describeType(v)}`,
    );
  }
  return v;
}

export function validateSort(sort: Document): void {
  for (const [field, dir] of Object.entries(sort)) {
    const ok = dir === 1 || dir === -1 || (isPlainObject(dir) && '$meta' in dir);
    if (!ok) {
      throw new StoreError(
        'BadValue',
        `$sort key ordering must be 1 (for ascending) or -1 (for descending), got ${field}: ${JSON.stringify(dir)}`,
      );
    }
  }
}
