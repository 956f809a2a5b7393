import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { CrmSyncDoc } from '../../models/crm-sync.model';
import type { CrmSyncResult } from '../../sync/crm-sync';
import type { CrmSyncStatus } from '../../sync/sync.service';
import {
  CrmImportCounts,
  CrmImportResultType,
  toCrmImportResult,
} from '../import/crm-import-result.type';

export enum CrmSyncModeEnum {
  FULL = 'full',
  INCREMENTAL = 'incremental',
}
registerEnumType(CrmSyncModeEnum, {
  name: 'CrmSyncMode',
  description:
    'Full: every deal read; incremental: the deals changed since the last committed sync.',
});

export enum CrmSyncOutcomeEnum {
  RUNNING = 'running',
  OK = 'ok',
  FAILED = 'failed',
  SKIPPED = 'skipped',
}
registerEnumType(CrmSyncOutcomeEnum, {
  name: 'CrmSyncOutcome',
  description: 'SKIPPED: a scheduled run found another sync running.',
});

export enum CrmSyncTriggerEnum {
  API = 'api',
  CLI = 'cli',
  SCHEDULE = 'schedule',
}
registerEnumType(CrmSyncTriggerEnum, {
  name: 'CrmSyncTrigger',
  description: 'What started a sync: the API, `npm run sync`, or SYNC_INTERVAL_MINUTES.',
});

@ObjectType({ simpleResolvers: true, description: 'What a sync read from HubSpot.' })
export class CrmSyncFetched {
  @Field(() => Int, {
    description: 'Deals read: all of them on a full sync, those changed on an incremental one.',
  })
  deals!: number;

  @Field(() => Int, {
    description: 'Deals archived in HubSpot since the last sync (incremental syncs).',
  })
  archived!: number;
}

@ObjectType('CrmSyncResult', {
  simpleResolvers: true,
  description: 'A sync that committed: its mode, what it read, and the import it made.',
})
export class CrmSyncResultType {
  @Field(() => ID)
  syncId!: string;

  @Field(() => CrmSyncModeEnum)
  mode!: CrmSyncModeEnum;

  @Field(() => CrmSyncFetched)
  fetched!: CrmSyncFetched;

  @Field(() => Date, {
    nullable: true,
    description: 'Where the next incremental sync reads from (less a five-minute overlap).',
  })
  highWaterMark!: Date | null;

  @Field(() => CrmImportResultType, {
    description: 'The import of what was read, as importCrmData answers.',
  })
  import!: CrmImportResultType;
}

@ObjectType({ simpleResolvers: true, description: 'One sync run.' })
export class CrmSyncRun {
  @Field(() => ID)
  syncId!: string;

  @Field(() => CrmSyncTriggerEnum)
  trigger!: CrmSyncTriggerEnum;

  @Field(() => CrmSyncModeEnum, { nullable: true })
  mode!: CrmSyncModeEnum | null;

  @Field(() => CrmSyncOutcomeEnum)
  outcome!: CrmSyncOutcomeEnum;

  @Field()
  startedAt!: Date;

  @Field(() => Date, { nullable: true })
  finishedAt!: Date | null;

  @Field(() => ID, {
    nullable: true,
    description: 'The snapshot the sync committed (or found imported already).',
  })
  snapshotId!: string | null;

  @Field(() => CrmImportCounts, { nullable: true })
  counts!: CrmImportCounts | null;

  @Field(() => CrmSyncFetched, { nullable: true })
  fetched!: CrmSyncFetched | null;

  @Field(() => String, { nullable: true, description: 'Why it failed or was skipped.' })
  error!: string | null;
}

@ObjectType({ simpleResolvers: true, description: 'Where the HubSpot sync stands.' })
export class CrmSyncStatusType {
  @Field({ description: 'False when HUBSPOT_TOKEN is unset.' })
  configured!: boolean;

  @Field(() => CrmSyncRun, {
    nullable: true,
    description: 'The sync under way, else the one finished last.',
  })
  latest!: CrmSyncRun | null;

  @Field(() => Date, { nullable: true })
  highWaterMark!: Date | null;

  @Field(() => Date, {
    nullable: true,
    description: "This instance's next scheduled sync; null without SYNC_INTERVAL_MINUTES.",
  })
  nextRunAt!: Date | null;
}

export function toCrmSyncResult(result: CrmSyncResult): CrmSyncResultType {
  return {
    syncId: result.syncId,
    mode: result.mode as CrmSyncModeEnum,
    fetched: { ...result.fetched },
    highWaterMark: result.highWaterMark,
    import: toCrmImportResult(result.import),
  };
}

function toRun(run: CrmSyncDoc): CrmSyncRun {
  return {
    syncId: run._id,
    trigger: run.trigger as CrmSyncTriggerEnum,
    mode: run.mode as CrmSyncModeEnum | null,
    outcome: run.outcome as CrmSyncOutcomeEnum,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    snapshotId: run.snapshotId,
    counts: run.counts === null ? null : { ...run.counts },
    fetched:
      run.fetched === null ? null : { deals: run.fetched.deals, archived: run.fetched.archived },
    error: run.error,
  };
}

export function toCrmSyncStatus(status: CrmSyncStatus): CrmSyncStatusType {
  return {
    configured: status.configured,
    latest: status.latest === null ? null : toRun(status.latest),
    highWaterMark: status.highWaterMark,
    nextRunAt: status.nextRunAt,
  };
}
