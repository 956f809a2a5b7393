import { Arg, Args, Ctx, Extensions, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { AuthenticatedContext } from '../../context/request-context';
import { pageComplexity } from '../../security/field-costs';
import { crmSyncRun, crmSyncRuns, startCrmSync } from '../../sync/sync.service';
import { NOT_KEPT } from '../answer-cache.plugin';
import { PageArgs } from '../common/page.args';
import {
  CrmSyncConnection,
  CrmSyncModeEnum,
  CrmSyncType,
  toCrmSync,
  toCrmSyncConnection,
} from './crm-sync.type';

@Resolver()
export class SyncResolver {
  @Mutation(() => CrmSyncType, {
    description:
      'Admin only. Starts a sync from the configured CRM and returns it at once, RUNNING (the same as POST /crm/syncs); follow it with crmSync(id). ' +
      'The first sync is full, later ones incremental unless `mode` says. CONFLICT when the sync is not configured or one is running (named).',
  })
  async syncCrmData(
    @Arg('mode', () => CrmSyncModeEnum, {
      nullable: true,
      description: 'Default: full the first time, incremental after.',
    })
    mode: CrmSyncModeEnum | null,
    @Arg('force', () => Boolean, {
      defaultValue: false,
      description: "Passed to the import's guard against losing data by mistake.",
    })
    force: boolean,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<CrmSyncType> {
    return toCrmSync(await startCrmSync(ctx, { mode: mode ?? undefined, force }));
  }

  @Query(() => CrmSyncType, {
    description: 'Admin only. One sync (GET /crm/syncs/{sync_id}); NOT_FOUND when unknown.',
  })
  // A running sync changes without any write the answer cache watches.
  @Extensions({ [NOT_KEPT]: true })
  async crmSync(
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<CrmSyncType> {
    return toCrmSync(await crmSyncRun(ctx, id));
  }

  @Query(() => CrmSyncConnection, {
    description: 'Admin only. The most recent syncs, newest first (GET /crm/syncs).',
    complexity: pageComplexity,
  })
  @Extensions({ [NOT_KEPT]: true })
  async crmSyncs(
    @Args() args: PageArgs,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<CrmSyncConnection> {
    const page = await crmSyncRuns(ctx, {
      limit: args.first,
      cursor: args.after,
      cursorField: 'after',
    });
    return toCrmSyncConnection(page.runs, page.nextCursor !== null);
  }
}
