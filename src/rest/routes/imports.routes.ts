import { withImportNotes } from '../../import/import-summary';
import { importCrmData } from '../../services/import.service';
import { envelopeSchema } from '../envelope-schema';
import { CrmImportBody } from '../inputs/crm-import.input';
import { ok, type RouteDefinition } from '../route-definition';
import { adminOnly } from '../route-roles';

const count = { type: 'integer', minimum: 0 };

const IMPORT_RESPONSE = envelopeSchema(
  {
    snapshot_id: { type: 'string' },
    mode: { type: 'string', enum: ['full', 'incremental'] },
    counts: {
      type: 'object',
      properties: {
        pipelines: count,
        stages: count,
        deals: count,
        owners: count,
        teams: count,
        members_created: count,
      },
      required: ['pipelines', 'stages', 'deals', 'owners', 'teams', 'members_created'],
    },
    skipped: {
      type: 'array',
      items: {
        type: 'object',
        properties: { id: { type: 'string' }, reason: { type: 'string' } },
        required: ['id', 'reason'],
      },
    },
    demo_removed: { type: 'boolean' },
    skipped_for_currency: {
      type: 'array',
      items: {
        type: 'object',
        properties: { currency: { type: 'string' }, deals: count },
        required: ['currency', 'deals'],
      },
    },
  },
  ['snapshot_id', 'mode', 'counts', 'skipped', 'demo_removed', 'skipped_for_currency'],
);

const importRoute: RouteDefinition<CrmImportBody> = {
  method: 'POST',
  path: '/crm/imports',
  summary: 'Import HubSpot pipelines, owners and deals as a new snapshot (admin); idempotent',
  tag: 'CRM import',
  authenticated: true,
  roles: adminOnly('import CRM data'),
  input: CrmImportBody,
  largeBody: true,
  response: IMPORT_RESPONSE,
  handler: async (ctx, input) => {
    const result = await importCrmData(
      ctx,
      {
        pipelines: input.pipelines,
        owners: input.owners,
        deals: input.deals,
        snapshotAt: input.snapshot_at,
        backfill: input.backfill,
        mode: input.mode,
        force: input.force,
        homeCurrency: input.home_currency,
      },
      { queue: ctx.access.imports, retentionDays: ctx.access.snapshotRetentionDays },
    );
    const { counts } = result;
    const summary = result.reused
      ? 'This data was already imported; its snapshot is answered and nothing was written'
      : result.mode === 'incremental'
        ? `Applied ${result.changes.updated} changed and ${result.changes.removed} removed deals: snapshot ${result.snapshotId} holds ${counts.deals} deals in ${counts.pipelines} pipelines` +
          (result.skipped.length > 0
            ? `; ${result.skipped.length} items skipped or defaulted, see skipped`
            : '')
        : `Imported ${counts.deals} deals in ${counts.pipelines} pipelines as snapshot ${result.snapshotId}` +
          (result.snapshotIds.length > 1
            ? ` (and ${result.snapshotIds.length - 1} backfilled snapshots)`
            : '') +
          (result.skipped.length > 0
            ? `; ${result.skipped.length} items skipped or defaulted, see skipped`
            : '');
    return ok(withImportNotes(summary, result), {
      snapshot_id: result.snapshotId,
      mode: result.mode,
      counts: {
        pipelines: counts.pipelines,
        stages: counts.stages,
        deals: counts.deals,
        owners: counts.owners,
        teams: counts.teams,
        members_created: counts.membersCreated,
      },
      skipped: result.skipped,
      demo_removed: result.demoRemoved,
      skipped_for_currency: result.skippedForCurrency,
    });
  },
};

/** `POST /crm/imports`. */
export const importsRoutes: RouteDefinition[] = [importRoute as RouteDefinition];
