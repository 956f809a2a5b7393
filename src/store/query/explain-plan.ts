import type { Document } from 'bson';
import { isPlainObject } from '../storage/document-paths';
import type { Index } from '../storage/index';
import type { Access } from './access';
import { viewOf } from './mingo-view';

/**
 * The plan documents of mongod's explain (classic engine, explainVersion "1") for what the store
 * really did: the access stage (EOF, COLLSCAN, IDHACK, or FETCH over IXSCAN of the index it used)
 * under the stages a find adds (SORT, SKIP, LIMIT, PROJECTION_*). There is one plan: nothing is
 * rejected, and index bounds and multikey details are not reported.
 */

/** The filter as explain shows it: each predicate on its own, equality written `$eq`, several under `$and`. */
export function parsedQuery(filter: Document): Document {
  const parts: Document[] = [];
  for (const [field, cond] of Object.entries(filter)) {
    if (field.startsWith('$')) parts.push({ [field]: cond });
    else if (isOperatorObject(cond))
      for (const [op, v] of Object.entries(cond)) parts.push({ [field]: { [op]: v } });
    else if (isRegex(cond)) parts.push({ [field]: cond });
    else parts.push({ [field]: { $eq: cond } });
  }
  if (parts.length === 0) return {};
  return parts.length === 1 ? parts[0] : { $and: parts };
}

export function accessStage(access: Access, filter: Document): Document {
  const parsed = parsedQuery(filter);
  switch (access.stage) {
    case 'EOF':
      return { stage: 'EOF' };
    case 'IDHACK':
      return { stage: 'IDHACK' };
    case 'COLLSCAN':
      return {
        stage: 'COLLSCAN',
        ...withFilter(parsed),
        direction: access.direction < 0 ? 'backward' : 'forward',
      };
    case 'IXSCAN': {
      const index = access.index!;
      return {
        stage: 'FETCH',
        ...withFilter(parsedQuery(residual(filter, index))),
        inputStage: indexScan(index),
      };
    }
  }
}

/** A find's stages above its access stage, innermost first: sort, skip, limit, projection. */
export function findStages(
  access: Document,
  find: { sort?: Document; skip?: number; limit?: number; projection?: Document },
): Document {
  let plan = access;
  // A $natural sort is the collection scan's direction, not a sort stage.
  const sortFields = Object.entries(find.sort ?? {}).filter(([field]) => field !== '$natural');
  const sort = sortFields.length ? Object.fromEntries(sortFields) : undefined;
  if (sort) {
    const limitAmount = find.limit ? find.limit + (find.skip ?? 0) : undefined;
    plan = {
      stage: 'SORT',
      sortPattern: sort,
      memLimit: 104_857_600,
      ...(limitAmount ? { limitAmount } : {}),
      type: 'simple',
      inputStage: plan,
    };
  }
  if (find.skip) plan = { stage: 'SKIP', skipAmount: find.skip, inputStage: plan };
  if (find.limit && !sort) plan = { stage: 'LIMIT', limitAmount: find.limit, inputStage: plan };
  if (find.projection && Object.keys(find.projection).length) {
    const simple = Object.values(viewOf(find.projection)).every(
      (v) => typeof v === 'number' || typeof v === 'boolean',
    );
    plan = {
      stage: simple ? 'PROJECTION_SIMPLE' : 'PROJECTION_DEFAULT',
      transformBy: find.projection,
      inputStage: plan,
    };
  }
  return plan;
}

function indexScan(index: Index): Document {
  return {
    stage: 'IXSCAN',
    keyPattern: index.spec.key,
    indexName: index.name,
    isUnique: index.unique,
    isSparse: index.spec.sparse === true,
    isPartial: index.spec.partialFilterExpression !== undefined,
    indexVersion: 2,
    direction: 'forward',
  };
}

// The predicates the index lookup does not answer, which FETCH applies to what it reads.
function residual(filter: Document, index: Index): Document {
  return Object.fromEntries(
    Object.entries(filter).filter(([field]) => !index.fields.includes(field)),
  );
}

function withFilter(parsed: Document): Document {
  return Object.keys(parsed).length ? { filter: parsed } : {};
}

function isOperatorObject(v: unknown): v is Document {
  return (
    isPlainObject(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => k.startsWith('$'))
  );
}

function isRegex(v: unknown): boolean {
  return v instanceof RegExp || (v as { _bsontype?: string })?._bsontype === 'BSONRegExp';
}
