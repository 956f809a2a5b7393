import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Principal } from '../auth/principal';
import type { GatewayConfig } from '../config';
import type { HubSpotClient } from '../crm/hubspot/hubspot-client';
import type { CrmApiBudget } from '../crm/hubspot/request-pacer';
import { hubSpotClientFromConfig, type HubSpotClientOptions } from '../crm/hubspot/hubspot-client';
import { ConflictError } from '../errors';
import type { ImportQueue } from '../import/import-queue';
import {
  CrmSyncStateModel,
  HUBSPOT_SYNC_STATE_ID,
  type CrmSyncLease,
  type CrmSyncStateDoc,
} from '../models/crm-sync-state.model';
import { CrmSyncModel, type CrmSyncMode, type CrmSyncTrigger } from '../models/crm-sync.model';
import type { CrmImportResult, ImportProgress } from '../services/import.service';
import { importSynced } from './import-synced';
import { HIGH_WATER_OVERLAP_MS, readHubSpot, type ReadStep } from './read-hubspot';
import { failureMessage, syncError, SyncLeaseLostError } from './sync-errors';
import { SyncLease } from './sync-lease';
import { pruneSyncRuns } from './sync-runs';
import { syncFailed, syncSucceeded } from '../events/change-events';
import { pushEvents } from '../events/outbox/outbox-entry';
import { recordProgress } from './run-progress';

/** Progress of a sync: reading HubSpot, then the import's own steps. */
export type SyncProgress = { step: 'reading'; what: ReadStep; count: number } | ImportProgress;

/** A sync that committed (or found its data imported already). */
export interface CrmSyncResult {
  syncId: string;
  mode: CrmSyncMode;
  import: CrmImportResult;
  fetched: { deals: number; archived: number };
  /** The high-water mark after this sync: where the next incremental sync reads from (less the overlap). */
  highWaterMark: Date | null;
}

export interface CrmSyncOptions {
  config: Pick<
    GatewayConfig,
    'hubspotToken' | 'hubspotBaseUrl' | 'syncLeaseSeconds' | 'snapshotRetentionDays'
  >;
  /** The instance's import queue (DataAccess.imports). */
  queue: ImportQueue;
  /** Names the holder of the lease in status answers, e.g. `gateway` or `cli`. */
  role: string;
  /** HubSpot client settings beyond the base URL and token (tests shorten the backoff). */
  clientOptions?: Omit<HubSpotClientOptions, 'baseUrl' | 'token'>;
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

/**
 * The HubSpot sync of one gateway instance or CLI process: reads HubSpot and imports what it read
 * as a new snapshot, one sync at a time across instances (SyncLease). The first sync is full; the
 * next ones read the deals modified since the high-water mark, which is stored in the database and
 * moved only after the sync's snapshot committed. A sync that fails writes nothing but its run
 * record, and the next one starts from the last committed mark.
 */
export class CrmSync {
  /** This instance's name on the lease: role, host and process, and a random part. */
  readonly owner: string;

  readonly #client: HubSpotClient | null;

  readonly #lease: SyncLease;

  readonly #ttlMs: number;

  readonly #queue: ImportQueue;

  readonly #retentionDays: number;

  readonly #now: () => number;

  readonly #onRunEnded: (run: SyncRunReport) => void;

  constructor(options: CrmSyncOptions) {
    this.owner = `${options.role}@${os.hostname()}:${process.pid}/${randomUUID().slice(0, 8)}`;
    this.#client = hubSpotClientFromConfig(options.config, options.clientOptions);
    this.#ttlMs = options.config.syncLeaseSeconds * 1000;
    this.#now = options.now ?? Date.now;
    this.#lease = new SyncLease(this.owner, this.#ttlMs, this.#now);
    this.#queue = options.queue;
    this.#retentionDays = options.config.snapshotRetentionDays;
    this.#onRunEnded = options.onRunEnded ?? (() => undefined);
  }

  /** The HubSpot API requests left as HubSpot last said (null fields before any answer, or unconfigured). */
  apiBudget(): CrmApiBudget {
    return this.#client?.budget() ?? { rolling: null, daily: null };
  }

  /** False when HUBSPOT_TOKEN is unset. */
  get configured(): boolean {
    return this.#client !== null;
  }

  /**
   * Runs one sync. Not configured, or another sync holding the lease: 409 (a scheduled run records
   * itself as skipped instead and answers null). HubSpot refusing the token or failing: 502.
   */
  async run(
    principal: Principal,
    trigger: CrmSyncTrigger,
    options: { force?: boolean; onProgress?: (progress: SyncProgress) => void } = {},
  ): Promise<CrmSyncResult | null> {
    const started = performance.now();
    // What the run got to: a failure once the lease is taken is a failed run (it is recorded so).
    const reached: RunReached = { leased: false, mode: null };
    const report = (outcome: SyncRunReport['outcome']) =>
      this.#onRunEnded({
        trigger,
        mode: reached.mode,
        outcome,
        seconds: (performance.now() - started) / 1000,
      });
    try {
      const result = await this.#run(principal, trigger, options, reached);
      report(result === null ? 'skipped' : 'ok');
      return result;
    } catch (error) {
      report(reached.leased ? 'failed' : 'refused');
      throw error;
    }
  }

  async #run(
    principal: Principal,
    trigger: CrmSyncTrigger,
    options: { force?: boolean; onProgress?: (progress: SyncProgress) => void },
    reached: RunReached,
  ): Promise<CrmSyncResult | null> {
    const client = this.#client;
    if (client === null) {
      throw new ConflictError(
        'The HubSpot sync is not configured: set HUBSPOT_TOKEN to a HubSpot access token (docs/hubspot-sync.md)',
      );
    }
    const syncId = randomUUID();
    const startedAt = new Date(this.#now());
    const taken = await this.#lease.acquire(syncId);
    if (!taken.acquired) {
      const why = busyMessage(taken.holder);
      if (trigger !== 'schedule') throw new ConflictError(why);
      await CrmSyncModel.create({
        _id: syncId,
        trigger,
        outcome: 'skipped',
        startedAt,
        finishedAt: startedAt,
        error: why,
      });
      return null;
    }
    reached.leased = true;

    let lost = false;
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

    let mode: CrmSyncMode;
    try {
      // Runs left `running` by a process that died: the lease was theirs, now it is ours.
      await CrmSyncModel.updateMany(
        { outcome: 'running' },
        {
          $set: { outcome: 'failed', finishedAt: startedAt, error: INTERRUPTED },
          ...pushEvents(syncFailed({ error: INTERRUPTED })),
        },
      );
      await CrmSyncModel.create({ _id: syncId, trigger, outcome: 'running', startedAt });
      const state = await CrmSyncStateModel.findById(HUBSPOT_SYNC_STATE_ID).lean<CrmSyncStateDoc>();
      const previousMark = state?.highWaterMark ?? null;
      const since =
        previousMark === null ? null : new Date(previousMark.getTime() - HIGH_WATER_OVERLAP_MS);
      mode = since === null ? 'full' : 'incremental';
      reached.mode = mode;
      await CrmSyncModel.updateOne({ _id: syncId }, { $set: { mode } });

      const onProgress = recordProgress(syncId, options.onProgress ?? (() => undefined), this.#now);
      const read = await readHubSpot(
        client,
        since,
        (what, count) => onProgress({ step: 'reading', what, count }),
        this.#now,
      );
      if (lost) throw new SyncLeaseLostError();
      const result = await importSynced(principal, read, {
        force: options.force === true,
        queue: this.#queue,
        retentionDays: this.#retentionDays,
        onProgress: (progress) => {
          // Before the commit point a throw here discards the import; after it, nothing is undone.
          if (lost && progress.step !== 'committing') throw new SyncLeaseLostError();
          onProgress(progress);
        },
      });
      const mark = laterOf(state?.highWaterMark ?? null, read.highWaterMark);
      // Fenced: a sync that lost its lease does not move the mark of the one that took it.
      await this.#lease.commit(syncId, {
        highWaterMark: mark,
        snapshotId: result.snapshotId,
        committedAt: new Date(this.#now()),
      });
      await CrmSyncModel.updateOne(
        { _id: syncId },
        {
          $set: {
            outcome: 'ok',
            finishedAt: new Date(this.#now()),
            snapshotId: result.snapshotId,
            reused: result.reused,
            counts: result.counts,
            fetched: read.fetched,
          },
          ...pushEvents(
            syncSucceeded({
              syncId,
              mode,
              snapshotId: result.snapshotId,
              reused: result.reused,
              counts: result.counts,
              fetched: read.fetched,
            }),
          ),
        },
      );
      await pruneSyncRuns();
      return { syncId, mode, import: result, fetched: read.fetched, highWaterMark: mark };
    } catch (error) {
      const answered = syncError(error);
      await CrmSyncModel.updateOne(
        { _id: syncId },
        {
          $set: {
            outcome: 'failed',
            finishedAt: new Date(this.#now()),
            error: failureMessage(answered),
          },
          ...pushEvents(syncFailed({ sync_id: syncId, error: failureMessage(answered) })),
        },
      ).catch(() => undefined);
      throw answered;
    } finally {
      clearInterval(renewal);
      await this.#lease.release(syncId).catch(() => undefined);
    }
  }
}

/** How far a run got, for its report. */
interface RunReached {
  leased: boolean;
  mode: CrmSyncMode | null;
}

/** What a run left `running` by a process that stopped is recorded with. */
export const INTERRUPTED =
  'interrupted: the process running it stopped before it finished; nothing of it was kept';

function busyMessage(holder: CrmSyncLease | null): string {
  if (holder === null) return 'A HubSpot sync is already running; try again when it has finished';
  return `A HubSpot sync is already running (${holder.owner}, lease until ${holder.expiresAt.toISOString()}); try again when it has finished`;
}

function laterOf(a: Date | null, b: Date | null): Date | null {
  if (a === null) return b;
  if (b === null) return a;
  return a.getTime() >= b.getTime() ? a : b;
}
