import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Principal } from '../auth/principal';
import type {
  CrmApiBudget,
  CrmConnector,
  CrmDealPage,
  CrmProvider,
  CrmReadStep,
} from '../crm/connector';
import {
  connectorFromConfig,
  howToConfigure,
  type CrmClientOptions,
  type CrmConfig,
} from '../crm/connector-from-config';
import type { GatewayConfig } from '../config';
import { ConflictError } from '../errors';
import type { ImportQueue } from '../import/import-queue';
import {
  CrmSyncStateModel,
  SYNC_STATE_ID,
  type CrmSyncLease,
  type CrmSyncStateDoc,
} from '../models/crm-sync-state.model';
import {
  CrmSyncModel,
  type CrmSyncDoc,
  type CrmSyncMode,
  type CrmSyncTrigger,
} from '../models/crm-sync.model';
import type { CrmImportResult, ImportProgress } from '../services/import.service';
import { currencyNote, DEMO_REMOVED_NOTE } from '../import/import-summary';
import { importSynced } from './import-synced';
import { failureMessage, SyncLeaseLostError, SyncStoppedError } from './sync-errors';
import { SyncLease } from './sync-lease';
import { pruneSyncRuns } from './sync-runs';
import { syncFailed, syncSucceeded } from '../events/change-events';
import { pushEvents } from '../events/outbox/outbox-entry';

/**
 * How far before the cursor an incremental sync starts reading: records modified in the same
 * instant as the cursor (SOQL compares to the second), committed late by a long transaction, or
 * indexed late by HubSpot's search come again rather than being missed. A record read again that
 * did not change counts as unchanged and writes nothing.
 */
export const LOOK_BACK_MS = 5 * 60_000;

/** How often a running sync writes its progress to its run (others read it from there). */
const PROGRESS_WRITE_MS = 1000;

/** Progress of a sync: reading the CRM, then the import's own steps. */
export type SyncProgress =
  { step: 'reading'; what: CrmReadStep | 'deals'; count: number } | ImportProgress;

/** How a sync ended: its run, and the import it made (null when it failed). */
export interface FinishedSync {
  run: CrmSyncDoc;
  import: CrmImportResult | null;
}

/** A sync that started: its run as first written, and how it ends (never rejects). */
export interface StartedSync {
  run: CrmSyncDoc;
  finished: Promise<FinishedSync>;
}

export interface CrmSyncOptions {
  config: CrmConfig & Pick<GatewayConfig, 'syncLeaseSeconds' | 'snapshotRetentionDays'>;
  /** The instance's import queue (DataAccess.imports). */
  queue: ImportQueue;
  /** Names the holder of the lease in messages, e.g. `gateway` or `cli`. */
  role: string;
  /** Client settings beyond the configuration (tests shorten the backoff). */
  clientOptions?: CrmClientOptions;
  now?: () => number;
  /** Told how each run ended (the app's metrics). */
  onRunEnded?: (run: SyncRunReport) => void;
}

/** How a sync run ended, for the app's metrics. */
export interface SyncRunReport {
  trigger: CrmSyncTrigger;
  /** Null when the run stopped before knowing (refused, or another sync running). */
  mode: CrmSyncMode | null;
  /** `refused`: not configured or another sync running (409); `skipped`: a scheduled run that found one. */
  outcome: 'ok' | 'failed' | 'refused' | 'skipped';
  seconds: number;
}

/** What running one sync needs beside its run. */
interface Job {
  principal: Principal;
  run: CrmSyncDoc;
  since: Date | null;
  state: CrmSyncStateDoc | null;
  force: boolean;
  /** performance.now() when it was asked for, for its duration. */
  began: number;
  onProgress: (progress: SyncProgress) => void;
}

/**
 * The CRM sync of one gateway instance or CLI process: reads the configured CRM through its
 * connector and imports what it read, one sync at a time across instances (SyncLease). A sync is
 * a job: `start` answers its run as soon as it holds the lease, and the work goes on in the
 * background, its progress and outcome written to the run. The first sync is full; the next ones
 * read what changed since the cursor, which is stored in the database and moved only once the
 * sync's snapshot committed (or it found nothing changed). A sync that fails writes nothing but
 * its run, and the next one starts from the last committed cursor.
 */
export class CrmSync {
  /** This instance's name on the lease: role, host and process, and a random part. */
  readonly owner: string;

  readonly provider: CrmProvider;

  readonly #connector: CrmConnector | null;

  readonly #notConfigured: string;

  readonly #lease: SyncLease;

  readonly #ttlMs: number;

  readonly #queue: ImportQueue;

  readonly #retentionDays: number;

  readonly #now: () => number;

  readonly #onRunEnded: (run: SyncRunReport) => void;

  /** The syncs this instance runs, to stop them when it closes. */
  readonly #jobs = new Map<string, { stop: AbortController; finished: Promise<FinishedSync> }>();

  constructor(options: CrmSyncOptions) {
    this.owner = `${options.role}@${os.hostname()}:${process.pid}/${randomUUID().slice(0, 8)}`;
    this.provider = options.config.crmProvider;
    this.#connector = connectorFromConfig(options.config, options.clientOptions);
    this.#notConfigured = `The CRM sync is not configured: ${howToConfigure(options.config)} (docs/crm-sync.md)`;
    this.#ttlMs = options.config.syncLeaseSeconds * 1000;
    this.#now = options.now ?? Date.now;
    this.#lease = new SyncLease(this.owner, this.#ttlMs, this.#now);
    this.#queue = options.queue;
    this.#retentionDays = options.config.snapshotRetentionDays;
    this.#onRunEnded = options.onRunEnded ?? (() => undefined);
  }

  /** The CRM's API requests left as it last said (null fields before any answer, or unconfigured). */
  apiBudget(): CrmApiBudget {
    return this.#connector?.budget() ?? { rolling: null, daily: null };
  }

  /** False when the configured CRM's credentials are not set. */
  get configured(): boolean {
    return this.#connector !== null;
  }

  /** The CRM's name in messages. */
  get crmName(): string {
    return this.provider === 'salesforce' ? 'Salesforce' : 'HubSpot';
  }

  /**
   * Starts a sync and answers its run once it holds the lease; the sync goes on in the
   * background. Not configured, another sync running (named), or `incremental` asked for with no
   * committed sync to continue from: 409.
   */
  async start(
    principal: Principal,
    trigger: CrmSyncTrigger,
    options: {
      mode?: CrmSyncMode;
      force?: boolean;
      onProgress?: (progress: SyncProgress) => void;
    } = {},
  ): Promise<StartedSync> {
    const began = performance.now();
    try {
      return await this.#begin(principal, trigger, options, began);
    } catch (error) {
      this.#onRunEnded({
        trigger,
        mode: null,
        outcome: trigger === 'schedule' && error instanceof ConflictError ? 'skipped' : 'refused',
        seconds: (performance.now() - began) / 1000,
      });
      throw error;
    }
  }

  async #begin(
    principal: Principal,
    trigger: CrmSyncTrigger,
    options: {
      mode?: CrmSyncMode;
      force?: boolean;
      onProgress?: (progress: SyncProgress) => void;
    },
    began: number,
  ): Promise<StartedSync> {
    const connector = this.#connector;
    if (connector === null) throw new ConflictError(this.#notConfigured);
    const syncId = randomUUID();
    const taken = await this.#lease.acquire(syncId);
    if (!taken.acquired) throw new ConflictError(busyMessage(taken.holder));
    let job: Job;
    try {
      const startedAt = new Date(this.#now());
      // Runs left `running` by a process that died: the lease was theirs, now it is ours.
      await CrmSyncModel.updateMany(
        { status: 'running' },
        {
          $set: { status: 'failed', finishedAt: startedAt, error: INTERRUPTED },
          ...pushEvents(syncFailed({ error: INTERRUPTED })),
        },
      );
      const state = await CrmSyncStateModel.findById(SYNC_STATE_ID).lean<CrmSyncStateDoc>();
      const mark = state?.provider === this.provider ? (state.highWaterMark ?? null) : null;
      if (options.mode === 'incremental' && mark === null) {
        throw new ConflictError(
          `An incremental sync reads what changed since the last committed ${this.crmName} sync, and there is none yet: run a full one first (mode "full", or no mode)`,
        );
      }
      const mode: CrmSyncMode = options.mode ?? (mark === null ? 'full' : 'incremental');
      const run: CrmSyncDoc = {
        _id: syncId,
        provider: this.provider,
        trigger,
        mode,
        status: 'running',
        startedAt,
        finishedAt: null,
        progress: { dealsRead: 0 },
        snapshotId: null,
        counts: null,
        changes: null,
        error: null,
        notes: [],
      };
      await CrmSyncModel.create(run);
      job = {
        principal,
        run,
        since: mode === 'full' || mark === null ? null : new Date(mark.getTime() - LOOK_BACK_MS),
        state: state?.provider === this.provider ? state : null,
        force: options.force === true,
        began,
        onProgress: options.onProgress ?? (() => undefined),
      };
    } catch (error) {
      await this.#lease.release(syncId).catch(() => undefined);
      throw error;
    }
    const stop = new AbortController();
    const finished = this.#execute(connector, job, stop.signal).finally(() =>
      this.#jobs.delete(syncId),
    );
    this.#jobs.set(syncId, { stop, finished });
    return { run: { ...job.run }, finished };
  }

  /** Stops the syncs this instance runs (each fails, keeping nothing) and waits for them. */
  async stop(): Promise<void> {
    const jobs = [...this.#jobs.values()];
    for (const job of jobs) job.stop.abort(new SyncStoppedError());
    await Promise.all(jobs.map((job) => job.finished));
  }

  #reportEnd(job: Job, outcome: 'ok' | 'failed'): void {
    this.#onRunEnded({
      trigger: job.run.trigger,
      mode: job.run.mode,
      outcome,
      seconds: (performance.now() - job.began) / 1000,
    });
  }

  /** Runs a started sync to its end; answers the run as it ended, success or failure. */
  async #execute(connector: CrmConnector, job: Job, signal: AbortSignal): Promise<FinishedSync> {
    const syncId = job.run._id;
    let lost = false;
    /** Whether the metrics have counted this run's end. */
    let reported = false;
    const renewal = setInterval(
      () => {
        this.#lease.renew(syncId).then(
          (held) => {
            if (!held) lost = true;
          },
          // The database did not answer: the next renewal tries again, the expiry decides.
          () => undefined,
        );
      },
      Math.max(1000, Math.floor(this.#ttlMs / 3)),
    );
    renewal.unref();
    const progress = new ProgressWriter(syncId, this.#now);
    const halt = () => {
      if (signal.aborted) throw signal.reason;
      if (lost) throw new SyncLeaseLostError();
    };
    try {
      const readStart = this.#now();
      const read = await connector.read(job.since, {
        signal,
        onStep: (what, count) => job.onProgress({ step: 'reading', what, count }),
      });
      let latest: number | null = null;
      const deals = async function* (): AsyncGenerator<CrmDealPage> {
        for await (const page of read.deals) {
          halt();
          progress.add(page.results.length);
          job.onProgress({ step: 'reading', what: 'deals', count: progress.dealsRead });
          if (page.latestModifiedAt !== null && (latest === null || page.latestModifiedAt > latest))
            latest = page.latestModifiedAt;
          yield page;
        }
      };
      const result = await importSynced(
        job.principal,
        { ...read, deals: deals() },
        {
          mode: job.run.mode,
          force: job.force,
          queue: this.#queue,
          retentionDays: this.#retentionDays,
          onProgress: (step) => {
            // Before the commit point a throw here discards the import; after it, nothing is undone.
            if (step.step !== 'committing') halt();
            job.onProgress(step);
          },
        },
      );
      // A record changed while the pages were read may have come in its earlier copy: the mark
      // is never later than the moment the read began.
      const readMark = latest === null ? null : new Date(Math.min(latest, readStart));
      const mark = laterOf(job.state?.highWaterMark ?? null, readMark);
      // Fenced: a sync that lost its lease does not move the mark of the one that took it.
      await this.#lease.commit(syncId, {
        provider: connector.provider,
        highWaterMark: mark,
        snapshotId: result.snapshotId,
        committedAt: new Date(this.#now()),
      });
      await progress.flush();
      const finished: Partial<CrmSyncDoc> = {
        status: 'succeeded',
        finishedAt: new Date(this.#now()),
        progress: { dealsRead: progress.dealsRead },
        snapshotId: result.committed ? result.snapshotId : null,
        counts: result.counts,
        changes: { ...result.comparison },
        notes: importNotes(result),
      };
      // Counted before the run says it ended, so whoever saw it end finds it in the metrics.
      this.#reportEnd(job, 'ok');
      reported = true;
      await CrmSyncModel.updateOne(
        { _id: syncId },
        {
          $set: finished,
          ...pushEvents(
            syncSucceeded({
              syncId,
              provider: connector.provider,
              mode: job.run.mode,
              snapshotId: finished.snapshotId ?? null,
              counts: result.counts,
              changes: result.comparison,
            }),
          ),
        },
      );
      await pruneSyncRuns();
      return { run: { ...job.run, ...finished }, import: result };
    } catch (error) {
      await progress.flush().catch(() => undefined);
      const failed: Partial<CrmSyncDoc> = {
        status: 'failed',
        finishedAt: new Date(this.#now()),
        progress: { dealsRead: progress.dealsRead },
        error: failureMessage(error),
      };
      if (!reported) this.#reportEnd(job, 'failed');
      await CrmSyncModel.updateOne(
        { _id: syncId },
        { $set: failed, ...pushEvents(syncFailed({ sync_id: syncId, error: failed.error })) },
      ).catch(() => undefined);
      return { run: { ...job.run, ...failed }, import: null };
    } finally {
      clearInterval(renewal);
      await this.#lease.release(syncId).catch(() => undefined);
    }
  }
}

/**
 * Writes a running sync's progress to its run, at most every PROGRESS_WRITE_MS, one write at a
 * time: readers on any instance follow it there.
 */
class ProgressWriter {
  dealsRead = 0;

  #writtenAt = 0;

  #writing: Promise<void> | null = null;

  constructor(
    private readonly syncId: string,
    private readonly now: () => number,
  ) {}

  add(deals: number): void {
    this.dealsRead += deals;
    if (this.#writing !== null || this.now() - this.#writtenAt < PROGRESS_WRITE_MS) return;
    this.#writtenAt = this.now();
    this.#writing = this.#write().finally(() => {
      this.#writing = null;
    });
  }

  async flush(): Promise<void> {
    await this.#writing;
  }

  async #write(): Promise<void> {
    await CrmSyncModel.updateOne(
      { _id: this.syncId, status: 'running' },
      { $set: { 'progress.dealsRead': this.dealsRead } },
      // Progress is a hint: a write the database refuses is not the sync's failure.
    ).catch(() => undefined);
  }
}

/** What a run left `running` by a process that stopped is recorded with. */
export const INTERRUPTED =
  'interrupted: the process running it stopped before it finished; nothing of it was kept';

function busyMessage(holder: CrmSyncLease | null): string {
  if (holder === null) return 'A CRM sync is already running; try again when it has finished';
  return `A CRM sync is already running: sync ${holder.syncId} (${holder.owner}, lease until ${holder.expiresAt.toISOString()}); follow it at GET /crm/syncs/${holder.syncId}, and try again when it has finished`;
}

/** The notes an import's message carries: the demo's removal first, then the currency. */
function importNotes(result: CrmImportResult): string[] {
  const currency = currencyNote(result);
  return [...(result.demoRemoved ? [DEMO_REMOVED_NOTE] : []), ...(currency ? [currency] : [])];
}

function laterOf(a: Date | null, b: Date | null): Date | null {
  if (a === null) return b;
  if (b === null) return a;
  return a.getTime() >= b.getTime() ? a : b;
}
