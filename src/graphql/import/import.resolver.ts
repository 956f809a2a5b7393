import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { AuthenticatedContext } from '../../context/request-context';
import { importCrmData } from '../../services/import.service';
import { CrmImportInput } from './crm-import.input';
import { CrmImportResultType, toCrmImportResult } from './crm-import-result.type';

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
}
