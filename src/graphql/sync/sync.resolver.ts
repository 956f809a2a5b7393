import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../context/request-context';
import { ConflictError } from '../../errors';
import type { GatewaySync } from '../../sync/gateway-sync';
import { latestCrmSync, syncCrmData } from '../../sync/sync.service';
import { principalOf } from '../member/principal-of';
import {
  CrmSyncResultType,
  CrmSyncStatusType,
  toCrmSyncResult,
  toCrmSyncStatus,
} from './crm-sync.type';

function gatewaySync(ctx: RequestContext): GatewaySync {
  if (ctx.sync === undefined)
    throw new ConflictError('The HubSpot sync is not available in this process');
  return ctx.sync;
}

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
    @Ctx() ctx: RequestContext,
  ): Promise<CrmSyncResultType> {
    return toCrmSyncResult(await syncCrmData(principalOf(ctx), gatewaySync(ctx), { force }));
  }

  @Query(() => CrmSyncStatusType, {
    description:
      'Admin only. The latest HubSpot sync and the next scheduled one (GET /crm/syncs/latest).',
  })
  async crmSyncStatus(@Ctx() ctx: RequestContext): Promise<CrmSyncStatusType> {
    return toCrmSyncStatus(await latestCrmSync(principalOf(ctx), gatewaySync(ctx), ctx.data));
  }
}
