import { Field, ID, Int, ObjectType } from 'type-graphql';
import { CrmSyncOutcomeEnum } from '../sync/crm-sync.type';

@ObjectType('CrmSyncProgress', {
  simpleResolvers: true,
  description: 'Where a sync stands: sent as it advances, the last one when it ends.',
})
export class CrmSyncProgressType {
  @Field(() => ID)
  syncId!: string;

  @Field(() => CrmSyncOutcomeEnum, { description: 'RUNNING until the sync ends.' })
  outcome!: CrmSyncOutcomeEnum;

  @Field(() => String, {
    nullable: true,
    description: 'reading (the CRM), owners, snapshots, committing; null before the first report.',
  })
  step!: string | null;

  @Field(() => Int, { description: 'Deals read from the CRM so far.' })
  dealsRead!: number;

  @Field(() => Int, { description: "The import's units done (deals × snapshots while writing)." })
  done!: number;

  @Field(() => Int)
  total!: number;

  @Field(() => ID, { nullable: true, description: 'The snapshot it committed, once it has.' })
  snapshotId!: string | null;

  @Field(() => String, { nullable: true, description: 'Why it failed.' })
  error!: string | null;
}
