import { Arg, Ctx, Extensions, Mutation, Query, Resolver } from 'type-graphql';
import type { AuthenticatedContext } from '../../context/request-context';
import { NOT_KEPT } from '../answer-cache.plugin';
import { latestCrmSync, syncCrmData } from '../../sync/sync.service';
import {
  CrmSyncResultType,
  CrmSyncStatusType,
  toCrmSyncResult,
  toCrmSyncStatus,
} from './crm-sync.type';

@Resolver()
export class SyncResolver {
  @Mutation(() => CrmSyncResultType, {
    description:
      'Admin only. Syncs from HubSpot now (the same as POST /crm/syncs): the first sync full, later ones the deals changed since the last. ' +
      'CONFLICT when HUBSPOT_TOKEN is unset or a sync is running; BAD_GATEWAY when HubSpot refuses the token or keeps failing.',
  })
  async syncCrmData(
    @Arg('force', () => Boolean, {
      defaultValue: false,
      description: "Passed to the import's guard against losing data by mistake.",
    })
    force: boolean,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<CrmSyncResultType> {
    return toCrmSyncResult(await syncCrmData(ctx, { force }));
  }

  @Query(() => CrmSyncStatusType, {
    description:
      'Admin only. The latest HubSpot sync and the next scheduled one (GET /crm/syncs/latest).',
  })
  // The status depends on the clock (a lease that ran out, the next run) as much as on the data.
  @Extensions({ [NOT_KEPT]: true })
  async crmSyncStatus(@Ctx() ctx: AuthenticatedContext): Promise<CrmSyncStatusType> {
    return toCrmSyncStatus(await latestCrmSync(ctx));
  }
}
