import { setTimeout as sleep } from 'node:timers/promises';
import { crmSyncRun } from '../../sync/sync.service';
import { type CrmSyncType, toCrmSync } from '../sync/crm-sync.type';
import type { SubscriptionContext } from './live-connection';

/**
 * The `crmSync(id)` subscription (admin only, as the sync's status is): the run as the `crmSync`
 * query answers it, sent each time it moves (the run record, which the syncing instance updates as
 * it goes, read every EVENTS_POLL_MS from whichever instance the subscriber is on), the last one
 * when the sync ends, then the subscription completes. Unknown id: NOT_FOUND.
 */
export async function crmSyncStream(
  ctx: SubscriptionContext,
  id: string,
): Promise<AsyncIterable<CrmSyncType>> {
  let run = await crmSyncRun(ctx, id);
  return (async function* follow() {
    let last = '';
    for (;;) {
      const now = toCrmSync(run);
      const seen = JSON.stringify(now);
      if (seen !== last) {
        last = seen;
        yield now;
      }
      if (run.status !== 'running') return;
      await sleep(ctx.pollMs);
      run = await crmSyncRun(ctx, id);
    }
  })();
}
