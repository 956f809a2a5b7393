import type { Logger } from 'pino';
import type { Principal } from '../auth/principal';
import type { CrmSync } from './crm-sync';

/**
 * SYNC_INTERVAL_MINUTES: runs the instance's sync when the app is ready, then every interval after
 * the previous run started (at once if a run took longer). Owned by the app: started on ready,
 * stopped on close, which waits for a run under way. Instances with the same schedule do not sync
 * twice: the lease lets one run, the others record a skipped run.
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

  /** Stops the schedule and waits for a run under way. */
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
    this.#running = this.sync
      .run(this.principal, 'schedule')
      .then(
        (result) => {
          if (result === null)
            this.logger.info('scheduled HubSpot sync skipped: another sync is running');
          else
            this.logger.info(
              { syncId: result.syncId, mode: result.mode, snapshotId: result.import.snapshotId },
              'scheduled HubSpot sync committed',
            );
        },
        (error: unknown) =>
          this.logger.warn(
            { err: error },
            `scheduled HubSpot sync failed: ${(error as Error).message}`,
          ),
      )
      .finally(() => {
        this.#running = null;
        this.#schedule(Math.max(started + this.intervalMs, this.now()));
      });
  }
}
