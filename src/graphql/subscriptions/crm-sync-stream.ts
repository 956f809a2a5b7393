import { setTimeout as sleep } from 'node:timers/promises';
import { NotFoundError } from '../../errors';
import {
  CrmSyncStateModel,
  HUBSPOT_SYNC_STATE_ID,
  type CrmSyncStateDoc,
} from '../../models/crm-sync-state.model';
import { CrmSyncModel, type CrmSyncDoc } from '../../models/crm-sync.model';
import { requireAdmin } from '../../services/member-access';
import { INTERRUPTED } from '../../sync/crm-sync';
import type { RunProgress } from '../../sync/run-progress';
import { CrmSyncOutcomeEnum } from '../sync/crm-sync.type';
import type { CrmSyncProgressType } from './crm-sync-progress.type';
import type { SubscriptionContext } from './live-connection';

/** A run as the subscription sends it; a running run whose lease is gone is answered as failed. */
function progressOf(
  run: CrmSyncDoc,
  state: CrmSyncStateDoc | null,
  now: number,
): CrmSyncProgressType {
  const progress = (run as { progress?: RunProgress | null }).progress ?? null;
  const lease = state?.lease ?? null;
  const orphaned =
    run.outcome === 'running' &&
    !(lease !== null && lease.syncId === run._id && lease.expiresAt.getTime() > now);
  return {
    syncId: run._id,
    outcome: (orphaned ? 'failed' : run.outcome) as CrmSyncOutcomeEnum,
    step: progress?.step ?? null,
    dealsRead: progress?.dealsRead ?? 0,
    done: progress?.done ?? 0,
    total: progress?.total ?? 0,
    snapshotId: run.snapshotId,
    error: orphaned ? INTERRUPTED : run.error,
  };
}

/**
 * The `crmSync(id)` subscription (admin only, as the sync's status is): where the sync stands,
 * sent each time it moves (the run record, which the syncing instance updates as it goes, read
 * every EVENTS_POLL_MS from whichever instance the subscriber is on), the last one when the sync
 * ends, then the subscription completes. Unknown id: NOT_FOUND.
 */
export async function crmSyncStream(
  ctx: SubscriptionContext,
  id: string,
): Promise<AsyncIterable<CrmSyncProgressType>> {
  requireAdmin(ctx.live.principal, 'follow a CRM sync');
  const read = async () => {
    const [run, state] = await Promise.all([
      CrmSyncModel.findById(id).lean<CrmSyncDoc>(),
      CrmSyncStateModel.findById(HUBSPOT_SYNC_STATE_ID).lean<CrmSyncStateDoc>(),
    ]);
    return run ? progressOf(run, state, Date.now()) : null;
  };
  if ((await read()) === null) throw new NotFoundError(`Sync ${id} not found`);
  return (async function* follow() {
    let last = '';
    for (;;) {
      const now = await read();
      if (now === null) return;
      const seen = JSON.stringify(now);
      if (seen !== last) {
        last = seen;
        yield now;
      }
      if (now.outcome !== CrmSyncOutcomeEnum.RUNNING) return;
      await sleep(ctx.pollMs);
    }
  })();
}
