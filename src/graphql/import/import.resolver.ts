import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import type { AuthenticatedContext } from '../../context/request-context';
import { importCrmData, removeSnapshot } from '../../services/import.service';
import { CrmImportInput } from './crm-import.input';
import { CrmImportResultType, toCrmImportResult } from './crm-import-result.type';
import { RemovedSnapshotType, toRemovedSnapshot } from './removed-snapshot.type';

@Resolver()
export class ImportResolver {
  @Mutation(() => CrmImportResultType, {
    description:
      'Admin only. Imports HubSpot data as a new snapshot (the same as POST /crm/imports); idempotent.',
  })
  async importCrmData(
    @Arg('input', () => CrmImportInput) input: CrmImportInput,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<CrmImportResultType> {
    const result = await importCrmData(
      ctx,
      {
        pipelines: input.pipelines,
        owners: input.owners,
        deals: input.deals,
        snapshotAt: input.snapshotAt ?? undefined,
        backfill: input.backfill,
        mode: input.mode,
        force: input.force,
        homeCurrency: input.homeCurrency ?? undefined,
      },
      { queue: ctx.access.imports, retentionDays: ctx.access.snapshotRetentionDays },
    );
    return toCrmImportResult(result);
  }

  @Mutation(() => RemovedSnapshotType, {
    description:
      'Admin only. Removes a snapshot as retention would (the same as DEL /pipelines/snapshots/{id}): reading it answers NOT_FOUND naming the removal, and reads naming no snapshot see the latest one left. NOT_FOUND when unknown, CONFLICT while it is being imported.',
  })
  async removeSnapshot(
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: AuthenticatedContext,
  ): Promise<RemovedSnapshotType> {
    return toRemovedSnapshot(await removeSnapshot(ctx, id, { queue: ctx.access.imports }));
  }
}
