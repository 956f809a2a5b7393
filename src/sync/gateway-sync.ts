import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Principal } from '../auth/principal';
import { Role } from '../auth/role';
import type { GatewayConfig } from '../config';
import type { CrmClientOptions, CrmConfig } from '../crm/connector-from-config';
import type { ImportQueue } from '../import/import-queue';
import { CrmSync, type SyncRunReport } from './crm-sync';
import { SyncScheduler } from './sync-scheduler';

/** The sync of one gateway instance: what POST /crm/syncs starts, and the schedule if any. */
export interface GatewaySync {
  sync: CrmSync;
  /** Null when SYNC_INTERVAL_MINUTES is 0 or the CRM's credentials are unset. */
  scheduler: SyncScheduler | null;
}

/** Scheduled syncs run with an admin's rights, as the CLI does: whoever configured the schedule is one. */
const SCHEDULE_PRINCIPAL: Principal = {
  subject: 'sync-schedule',
  role: Role.ADMIN,
  memberId: null,
  teamId: null,
};

/**
 * Makes the instance's sync and, with SYNC_INTERVAL_MINUTES, its schedule, started when the app
 * is ready. When the app closes, the schedule stops and a sync this instance runs is stopped (it
 * fails, keeping nothing; the next one starts from the last committed point).
 */
export function createGatewaySync(
  app: FastifyInstance,
  options: {
    config: CrmConfig &
      Pick<GatewayConfig, 'syncLeaseSeconds' | 'syncIntervalMinutes' | 'snapshotRetentionDays'>;
    queue: ImportQueue;
    logger: Pick<Logger, 'info' | 'warn'>;
    clientOptions?: CrmClientOptions;
    /** Told how each run ended (the app's metrics). */
    onRunEnded?: (run: SyncRunReport) => void;
  },
): GatewaySync {
  const sync = new CrmSync({
    config: options.config,
    queue: options.queue,
    role: 'gateway',
    clientOptions: options.clientOptions,
    onRunEnded: options.onRunEnded,
  });
  const minutes = options.config.syncIntervalMinutes;
  const scheduler =
    minutes === 0 || !sync.configured
      ? null
      : new SyncScheduler(sync, minutes * 60_000, SCHEDULE_PRINCIPAL, options.logger);
  if (scheduler !== null) app.addHook('onReady', async () => scheduler.start());
  app.addHook('onClose', async () => {
    await scheduler?.stop();
    await sync.stop();
  });
  return { sync, scheduler };
}
