import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Principal } from '../auth/principal';
import { Role } from '../auth/role';
import type { GatewayConfig } from '../config';
import type { HubSpotClientOptions } from '../crm/hubspot/hubspot-client';
import type { ImportQueue } from '../import/import-queue';
import { CrmSync, type SyncRunReport } from './crm-sync';
import { SyncScheduler } from './sync-scheduler';

/** The sync of one gateway instance: what POST /crm/syncs runs, and the schedule if any. */
export interface GatewaySync {
  sync: CrmSync;
  /** Null when SYNC_INTERVAL_MINUTES is 0 or HUBSPOT_TOKEN unset. */
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
 * is ready and stopped (waiting for a run under way) when it closes.
 */
export function createGatewaySync(
  app: FastifyInstance,
  options: {
    config: Pick<
      GatewayConfig,
      | 'hubspotToken'
      | 'hubspotBaseUrl'
      | 'syncLeaseSeconds'
      | 'syncIntervalMinutes'
      | 'snapshotRetentionDays'
    >;
    queue: ImportQueue;
    logger: Pick<Logger, 'info' | 'warn'>;
    clientOptions?: Omit<HubSpotClientOptions, 'baseUrl' | 'token'>;
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
  if (minutes === 0 || !sync.configured) return { sync, scheduler: null };
  const scheduler = new SyncScheduler(sync, minutes * 60_000, SCHEDULE_PRINCIPAL, options.logger);
  app.addHook('onReady', async () => scheduler.start());
  app.addHook('onClose', async () => scheduler.stop());
  return { sync, scheduler };
}
