import { SCOPES, type Scope, type VersionView } from './scopes';

/**
 * Where a service notes the scopes it reads for a request (a RequestData); reads made for no
 * request (writes' own checks, imports) pass none.
 */
export interface ReadNotes {
  noteRead(scope: Scope): void;
  /** Notes that the answer depends on more than the data (the clock, a lease), so it is never kept. */
  noteUnkeepable(): void;
}

const BIT = new Map<Scope, number>(SCOPES.map((scope, i) => [scope, 1 << i]));

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
export class RequestData implements ReadNotes {
  /** The scopes read, one bit each (SCOPES order): no allocation for a request that reads nothing. */
  private readMask = 0;

  private known: VersionView | undefined;

  private unkeepable = false;

  private reading: Promise<VersionView> | undefined;

  constructor(
    private readonly readView: () => Promise<VersionView>,
    view?: VersionView,
  ) {
    this.known = view;
  }

  /** Notes a read of `scope` by this request. */
  noteRead(scope: Scope): void {
    this.readMask |= BIT.get(scope)!;
  }

  noteUnkeepable(): void {
    this.unkeepable = true;
  }

  /** Whether this request's answer may be kept (nothing it read depends on more than the data). */
  get keepable(): boolean {
    return !this.unkeepable;
  }

  /** Whether this request has read `scope`. */
  hasRead(scope: Scope): boolean {
    return (this.readMask & BIT.get(scope)!) !== 0;
  }

  /** The scopes read so far, in SCOPES order. */
  get reads(): Scope[] {
    return SCOPES.filter((scope) => this.hasRead(scope));
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
