/**
 * Lets one GraphQL execution compute at a time, the others waiting in arrival order; an execution
 * that waits for the database (or anything else outside the process) lets the next one in.
 *
 * Why: executions that start together, as the dashboards of many callers do after a write makes
 * them all be computed again, would otherwise advance in turns at every promise of their
 * resolvers, so each one finishes only when nearly all of them have: every caller waits for the
 * whole burst. One at a time, the first is answered after its own work, the second after two, and
 * only the last waits for them all, for the same CPU in total.
 *
 * How it tells computing from waiting: an execution that only computes runs in promise jobs
 * (microtasks), which all run before Node's event loop reaches its `setImmediate` callbacks. So
 * if the one admitted is still running when the `setImmediate` queued at its admission runs, it
 * has handed the event loop back to wait for something, and the next one is let in. The gate
 * therefore never holds the CPU idle while executions wait, and work that waits on the database
 * overlaps as much as it did without it. Kept answers never reach it (the answer cache answers
 * before execution).
 */
export class ExecutionGate {
  /** Whether an admitted execution is computing (has not finished nor waited yet). */
  private busy = false;

  /** Executions waiting to be admitted, in arrival order. */
  private readonly queue: Array<() => void> = [];

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.busy) await new Promise<void>((resolve) => this.queue.push(resolve));
    else this.busy = true;
    let holding = true;
    const release = (): void => {
      if (!holding) return;
      holding = false;
      const next = this.queue.shift();
      // The gate passes straight to the next in line, so no later arrival overtakes it.
      if (next) next();
      else this.busy = false;
    };
    const yielded = setImmediate(release);
    try {
      return await work();
    } finally {
      clearImmediate(yielded);
      release();
    }
  }

  /** Executions waiting to be admitted (tests). */
  get waiting(): number {
    return this.queue.length;
  }
}
