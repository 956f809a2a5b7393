import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { CrmSyncDoc } from '../../models/crm-sync.model';
import { countedListComplexity } from '../../security/field-costs';
import { runCursor } from '../../sync/sync.service';
import { CrmImportCounts } from '../import/crm-import-result.type';
import { PageInfo } from '../member/page-info.type';

export enum CrmSyncModeEnum {
  FULL = 'full',
  INCREMENTAL = 'incremental',
}
registerEnumType(CrmSyncModeEnum, {
  name: 'CrmSyncMode',
  description:
    'Full: every deal read; incremental: the deals changed or removed since the last committed sync.',
});

export enum CrmSyncStatusEnum {
  RUNNING = 'running',
  SUCCEEDED = 'succeeded',
  FAILED = 'failed',
}
registerEnumType(CrmSyncStatusEnum, {
  name: 'CrmSyncStatus',
  description: 'RUNNING until the sync ends; FAILED keeps nothing of it.',
});

export enum CrmProviderEnum {
  HUBSPOT = 'hubspot',
  SALESFORCE = 'salesforce',
}
registerEnumType(CrmProviderEnum, { name: 'CrmProvider', description: 'The CRM a sync reads.' });

@ObjectType({ simpleResolvers: true, description: 'How far a sync has come.' })
export class CrmSyncProgress {
  @Field(() => Int, {
    description:
      'Deals read from the CRM so far: all of them on a full sync, those changed or removed on an incremental one.',
  })
  dealsRead!: number;
}

@ObjectType({
  simpleResolvers: true,
  description: 'The deals of a sync compared with the latest snapshot before it.',
})
export class CrmSyncChanges {
  @Field(() => Int, { description: 'Deals the latest snapshot did not hold.' })
  added!: number;

  @Field(() => Int, { description: 'Deals whose state differs from the latest snapshot.' })
  changed!: number;

  @Field(() => Int, { description: 'Deals read again that did not change.' })
  unchanged!: number;

  @Field(() => Int, { description: 'Deals of the latest snapshot that left.' })
  removed!: number;
}

@ObjectType('CrmSync', { simpleResolvers: true, description: 'One sync from the CRM: a job.' })
export class CrmSyncType {
  @Field(() => ID)
  id!: string;

  @Field(() => CrmProviderEnum)
  provider!: CrmProviderEnum;

  @Field(() => CrmSyncModeEnum)
  mode!: CrmSyncModeEnum;

  @Field(() => CrmSyncStatusEnum)
  status!: CrmSyncStatusEnum;

  @Field()
  startedAt!: Date;

  @Field(() => Date, { nullable: true })
  finishedAt!: Date | null;

  @Field(() => CrmSyncProgress)
  progress!: CrmSyncProgress;

  @Field(() => ID, {
    nullable: true,
    description:
      'The snapshot the sync committed; null while it runs, when it failed, and when nothing changed (no snapshot was committed).',
  })
  snapshotId!: string | null;

  @Field(() => CrmImportCounts, { nullable: true, description: 'What the import counted.' })
  counts!: CrmImportCounts | null;

  @Field(() => CrmSyncChanges, { nullable: true, description: 'Null until the sync succeeded.' })
  changes!: CrmSyncChanges | null;

  @Field(() => String, { nullable: true, description: 'Why it failed.' })
  error!: string | null;
}

@ObjectType({ simpleResolvers: true })
export class CrmSyncEdge {
  @Field()
  cursor!: string;

  @Field(() => CrmSyncType)
  node!: CrmSyncType;
}

@ObjectType({ simpleResolvers: true, description: 'A page of syncs, newest first.' })
export class CrmSyncConnection {
  @Field(() => [CrmSyncEdge], { complexity: countedListComplexity })
  edges!: CrmSyncEdge[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;
}

export function toCrmSync(run: CrmSyncDoc): CrmSyncType {
  return {
    id: run._id,
    provider: run.provider as CrmProviderEnum,
    mode: run.mode as CrmSyncModeEnum,
    status: run.status as CrmSyncStatusEnum,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    progress: { dealsRead: run.progress.dealsRead },
    snapshotId: run.snapshotId,
    counts: run.counts === null ? null : { ...run.counts },
    changes: run.changes === null ? null : { ...run.changes },
    error: run.error,
  };
}

export function toCrmSyncConnection(runs: CrmSyncDoc[], hasNextPage: boolean): CrmSyncConnection {
  const edges = runs.map((run) => ({ cursor: runCursor(run), node: toCrmSync(run) }));
  return {
    edges,
    pageInfo: { hasNextPage, endCursor: edges.at(-1)?.cursor ?? null },
  };
}
