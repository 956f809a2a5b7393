import type { Document } from 'bson';
import type { Collection } from '../storage/collection';
import type { Index } from '../storage/index';
import { findCandidates, hintedCandidates, isSimpleIdQuery } from './candidates';
import { resolveHint } from './hint';

/**
 * How a read reaches its documents, in the terms mongod's explain uses: nothing (no collection),
 * a collection scan, the `_id` fast path, or one index.
 */
export interface Access {
  stage: 'EOF' | 'COLLSCAN' | 'IDHACK' | 'IXSCAN';
  index: Index | null;
  /** Collection scans only: -1 walks natural order backwards (`hint: {$natural: -1}`). */
  direction: 1 | -1;
  /** The candidates, in the order the access path gives them; the caller applies the filter. */
  docs: Iterable<Document>;
}

/**
 * Plans a read of `coll` for `filter`. `idHack`: the read may take mongod's `_id` fast path
 * (finds without a hint or skip; isIdHackEligibleQuery). `collated`: the filter compares strings
 * under a collation, so bytewise hash keys cannot answer string equalities. The hint is checked
 * even when the collection does not exist.
 */
export function planAccess(
  coll: Collection | undefined,
  filter: Document,
  options: { hint?: unknown; idHack?: boolean; collated?: boolean } = {},
): Access {
  const hint = resolveHint(coll, options.hint);
  if (!coll) return { stage: 'EOF', index: null, direction: 1, docs: [] };
  if (hint?.kind === 'natural') {
    const docs = [...coll.docs.values()];
    return {
      stage: 'COLLSCAN',
      index: null,
      direction: hint.direction,
      docs: hint.direction < 0 ? docs.reverse() : docs,
    };
  }
  const collated = options.collated === true;
  const found = hint
    ? hintedCandidates(coll, filter, hint.index, collated)
    : findCandidates(coll, filter, collated);
  if (!found.index) return { stage: 'COLLSCAN', index: null, direction: 1, docs: found.docs };
  const idHack = !hint && options.idHack === true && isSimpleIdQuery(filter);
  return {
    stage: idHack ? 'IDHACK' : 'IXSCAN',
    index: found.index,
    direction: 1,
    docs: found.docs,
  };
}
