import type { VersionView } from './scopes';

/**
 * What one request knows about the data: the version counters, read once when the request first
 * needs them. Every cache the request reads through is checked against them, and an answer it
 * computes is kept under them.
 *
 * The counters are read lazily, so a request refused before it reaches any data (bad input, a
 * GraphQL limit) costs no database round trip; the adapters read them before the work that may
 * read data starts (`ensureView` before a handler runs or an operation executes), so every read
 * of the request comes after them.
 */
export class RequestData {
  private known: VersionView | undefined;

  private reading: Promise<VersionView> | undefined;

  constructor(private readonly readView: () => Promise<VersionView>) {}

  /** The counters once read; undefined before. */
  get view(): VersionView | undefined {
    return this.known;
  }

  /** The counters, reading them on first use. */
  ensureView(): Promise<VersionView> {
    this.reading ??= this.readView().then((view) => (this.known = view));
    return this.reading;
  }
}
