import type { Scope, VersionView } from './scopes';

/**
 * What one request knows about the data: the version counters as of its arrival, which every
 * cache it reads through is checked against, and the scopes it has read so far, which decide
 * what its answer, if kept, depends on.
 */
export interface RequestData {
  readonly view: VersionView;
  readonly reads: Set<Scope>;
}

export function requestData(view: VersionView): RequestData {
  return { view, reads: new Set() };
}
