import { Field, ID, Int, ObjectType } from 'type-graphql';
import type { CrmImportResult } from '../../services/import.service';
import { CrmImportMode } from './crm-import.input';
import { PipelineSnapshot, toPipelineSnapshot } from '../pipeline/pipeline-snapshot.type';
import { listComplexity } from '../../security/field-costs';

@ObjectType({ simpleResolvers: true, description: 'What an import counted.' })
export class CrmImportCounts {
  @Field(() => Int, { description: 'Pipeline definitions imported (archived ones excluded).' })
  pipelines!: number;

  @Field(() => Int, { description: 'Stages of those definitions.' })
  stages!: number;

  @Field(() => Int, { description: 'Deals stored as opportunities; the others are in `skipped`.' })
  deals!: number;

  @Field(() => Int, {
    description: 'Owners mapped to a member (archived and e-mail-less owners excluded).',
  })
  owners!: number;

  @Field(() => Int, { description: 'Distinct teams of those owners.' })
  teams!: number;

  @Field(() => Int)
  membersCreated!: number;
}

@ObjectType({
  simpleResolvers: true,
  description: 'What an incremental import changed (zeros for a full import).',
})
export class CrmImportChanges {
  @Field(() => Int, { description: 'Deals carried: added or changed.' })
  updated!: number;

  @Field(() => Int, {
    description: 'Deals of the latest snapshot that left (archived, or no longer usable).',
  })
  removed!: number;
}

@ObjectType({
  simpleResolvers: true,
  description: 'An item of the HubSpot data left out, or taken with a stated default.',
})
export class CrmImportSkipped {
  @Field(() => ID, { description: 'HubSpot id of the deal, owner, pipeline or stage.' })
  id!: string;

  @Field()
  reason!: string;
}

@ObjectType({
  simpleResolvers: true,
  description: 'Deals skipped only for being in a currency other than the one counted.',
})
export class CrmCurrencySkips {
  @Field({ description: 'The currency they are in (ISO 4217).' })
  currency!: string;

  @Field(() => Int, {
    description: "How many: they would count with the account's currency set to `currency`.",
  })
  deals!: number;
}

@ObjectType('CrmImportResult', {
  simpleResolvers: true,
  description: 'The outcome of an import: its snapshot, counts and skipped items.',
})
export class CrmImportResultType {
  @Field(() => ID, { description: 'The current snapshot of the import (see `snapshot(id:)`).' })
  snapshotId!: string;

  @Field({ description: 'The moment the current snapshot represents.' })
  snapshotAt!: Date;

  @Field(() => PipelineSnapshot, {
    description: 'The current snapshot itself, to read its definitions and pipelines at once.',
  })
  snapshot!: PipelineSnapshot;

  @Field(() => [ID], {
    description: 'Every snapshot the import wrote, oldest first (several with backfill).',
  })
  snapshotIds!: string[];

  @Field(() => CrmImportCounts)
  counts!: CrmImportCounts;

  @Field(() => CrmImportMode)
  mode!: CrmImportMode;

  @Field(() => CrmImportChanges)
  changes!: CrmImportChanges;

  @Field(() => [CrmImportSkipped], { complexity: listComplexity })
  skipped!: CrmImportSkipped[];

  @Field({
    description:
      'True when the same data had already been imported: its snapshot is answered, nothing written.',
  })
  reused!: boolean;

  @Field({
    description:
      'True when this import removed the demo company first (the first import of your own data onto it).',
  })
  demoRemoved!: boolean;

  @Field(() => [CrmCurrencySkips], {
    description: 'Deals skipped for their currency, by currency, most first.',
    complexity: listComplexity,
  })
  skippedForCurrency!: CrmCurrencySkips[];
}

export function toCrmImportResult(result: CrmImportResult): CrmImportResultType {
  return {
    snapshotId: result.snapshotId,
    snapshotAt: result.snapshotAt,
    snapshot: toPipelineSnapshot({ id: result.snapshotId, snapshotAt: result.snapshotAt }),
    snapshotIds: result.snapshotIds,
    counts: { ...result.counts },
    skipped: result.skipped,
    reused: result.reused,
    mode: result.mode === 'incremental' ? CrmImportMode.INCREMENTAL : CrmImportMode.FULL,
    changes: { ...result.changes },
    demoRemoved: result.demoRemoved,
    skippedForCurrency: result.skippedForCurrency.map((entry) => ({ ...entry })),
  };
}
