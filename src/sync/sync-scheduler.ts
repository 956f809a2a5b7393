import type { Logger } from 'pino';
import type { Principal } from '../auth/principal';
import { ConflictError } from '../errors';
import type { CrmSync } from './crm-sync';

/**
 * SYNC_INTERVAL_MINUTES: runs the instance's sync when the app is ready, then every interval after
 * the previous run started (at once if a run took longer). Owned by the app: started on ready,
 * stopped on close. Instances with the same schedule do not sync twice: the lease lets one run,
 * the others log that they left it to the running one.
 */
export class SyncScheduler {
  #timer: NodeJS.Timeout | undefined;

  #next: Date | null = null;

  #running: Promise<void> | null = null;

  #stopped = false;

  constructor(
    private readonly sync: CrmSync,
    private readonly intervalMs: number,
    private readonly principal: Principal,
    private readonly logger: Pick<Logger, 'info' | 'warn'>,
    private readonly now: () => number = Date.now,
  ) {}

  /** When the next run is due; null once stopped. */
  get nextRunAt(): Date | null {
    return this.#next;
  }

  start(): void {
    this.#stopped = false;
    this.#schedule(this.now());
  }

  /** Stops the schedule and waits for the start of a run under way (the run itself the sync stops). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#next = null;
    await this.#running;
  }

  #schedule(at: number): void {
    if (this.#stopped) return;
    this.#next = new Date(at);
    this.#timer = setTimeout(() => this.#tick(), Math.max(0, at - this.now()));
    // The schedule alone does not keep a process alive; the server does.
    this.#timer.unref();
  }

  #tick(): void {
    const started = this.now();
    this.#next = new Date(started + this.intervalMs);
    const name = this.sync.crmName;
    this.#running = this.sync
      .start(this.principal, 'schedule')
      .then(({ finished }) => finished)
      .then(
        ({ run }) => {
          if (run.status === 'succeeded')
            this.logger.info(
              { syncId: run._id, mode: run.mode, snapshotId: run.snapshotId, changes: run.changes },
              `scheduled ${name} sync succeeded`,
            );
          else
            this.logger.warn(
              { syncId: run._id, mode: run.mode },
              `scheduled ${name} sync failed: ${run.error}`,
            );
        },
        (error: unknown) => {
          if (error instanceof ConflictError)
            this.logger.info(`scheduled ${name} sync skipped: ${error.message}`);
          else
            this.logger.warn(
              { err: error },
              `scheduled ${name} sync failed: ${(error as Error).message}`,
            );
        },
      )
      .finally(() => {
        this.#running = null;
        this.#schedule(Math.max(started + this.intervalMs, this.now()));
      });
  }
}
