import type { IncomingMessage } from 'node:http';

/** How often the sweep runs, as a share of the budget: a request is answered within 1.1× it. */
const SWEEPS_PER_BUDGET = 10;

/** How often the sweep runs for a budget. */
export function sweepIntervalMs(timeoutMs: number): number {
  return Math.max(1, Math.floor(timeoutMs / SWEEPS_PER_BUDGET));
}

interface Watched {
  deadline: number;
  late: () => void;
}

/**
 * The requests being answered and when each one's time budget (REQUEST_TIMEOUT_MS) runs out,
 * counted from its arrival; when it has, the callback its current holder gave runs once. A
 * request is watched by whoever holds it: the kept-answer lane while it waits for the versions,
 * then fastify's request timeout if the lane hands it on. Either watches the same raw request, so
 * a handed request keeps its arrival's deadline and its place.
 *
 * Why a sweep and not a timer per request: every request has the same budget, so requests in
 * arrival order are also in deadline order, and one unref'd interval looking at the oldest ones
 * finds every late request. A timer per request (create, unref, clear, and a map to find it) cost
 * about a twentieth of the throughput of a cached answer.
 */
export class RequestBudget {
  /** Insertion order is arrival order, hence deadline order (see above). */
  private readonly inFlight = new Map<IncomingMessage, Watched>();

  private readonly sweeper: NodeJS.Timeout;

  constructor(readonly timeoutMs: number) {
    this.sweeper = setInterval(() => this.sweep(), sweepIntervalMs(timeoutMs));
    this.sweeper.unref();
  }

  /**
   * Runs `late` once `request`'s budget is spent, unless `settle` comes first. A request watched
   * already keeps its deadline and place; `late` replaces what its earlier holder gave.
   */
  watch(request: IncomingMessage, late: () => void): void {
    const held = this.inFlight.get(request);
    if (held !== undefined) held.late = late;
    else this.inFlight.set(request, { deadline: Date.now() + this.timeoutMs, late });
  }

  /** `request` needs no late answer any more. */
  settle(request: IncomingMessage): void {
    this.inFlight.delete(request);
  }

  close(): void {
    clearInterval(this.sweeper);
    this.inFlight.clear();
  }

  private sweep(): void {
    const now = Date.now();
    for (const [request, watched] of this.inFlight) {
      if (watched.deadline > now) break;
      const { late } = watched;
      late();
      // A holder that took the request on in `late` watches it again: its own `late` runs next.
      if (watched.late === late) this.inFlight.delete(request);
    }
  }
}
