import { ArrayMaxSize, IsArray, IsOptional, IsString, MaxLength } from 'class-validator';
import { ArgsType, Field, ID } from 'type-graphql';

@ArgsType()
export class EventsArgs {
  @Field(() => [String], {
    nullable: true,
    description: 'Event types wanted (docs/events.md); omitted or ["*"]: every type.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(32)
  @IsString({ each: true })
  types?: string[] | null;

  @Field(() => ID, {
    nullable: true,
    description:
      'Only events about this pipeline (deal changes, alerts), and the account-wide ones (snapshots, syncs, settings).',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  pipelineId?: string | null;
}

@ArgsType()
export class CrmSyncArgs {
  @Field(() => ID, { description: 'The sync id (GET /crm/syncs/latest names the running one).' })
  @IsString()
  @MaxLength(200)
  id!: string;
}
