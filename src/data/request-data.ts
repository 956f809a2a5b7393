import type { Scope, VersionView } from './scopes';

/**
 * What one request knows about the data: the version counters as read once it first needed
 * them, which every cache it reads through is checked against, and the scopes it has read so far,
 * which decide what its answer, if kept, depends on.
 *
 * The counters are read lazily, so a request refused before it reaches any data (bad input, a
 * GraphQL limit) costs no database round trip; the adapters read them before the work that may
 * read data starts (`ensureView` before a handler runs or an operation executes), so every read
 * of the request comes after them.
 */
export class RequestData {
  readonly reads = new Set<Scope>();

  private known: VersionView | undefined;

  private reading: Promise<VersionView> | undefined;

  constructor(
    private readonly readView: () => Promise<VersionView>,
    view?: VersionView,
  ) {
    this.known = view;
  }

  /** The counters once read; undefined before. */
  get view(): VersionView | undefined {
    return this.known;
  }

  /** The counters, reading them on first use. */
  ensureView(): Promise<VersionView> {
    if (this.known !== undefined) return Promise.resolve(this.known);
    this.reading ??= this.readView().then((view) => (this.known = view));
    return this.reading;
  }
}

/** A request's data whose counters are already known (in-process reads, tests). */
export function requestData(view: VersionView): RequestData {
  return new RequestData(() => Promise.resolve(view), view);
}
