import { Allow, IsBoolean, IsDefined, IsOptional } from 'class-validator';
import { GraphQLJSON } from 'graphql-scalars';
import { Field, InputType } from 'type-graphql';

/**
 * The HubSpot response bodies, as JSON values exactly as the API returned them (the same documents
 * as POST /crm/imports). Their structure is checked by the import service, which names bad paths.
 */
@InputType({ description: 'HubSpot CRM v3 response bodies to import, unedited.' })
export class CrmImportInput {
  @Field(() => GraphQLJSON, { description: 'Body of GET /crm/v3/pipelines/deals.' })
  @IsDefined()
  pipelines!: unknown;

  @Field(() => GraphQLJSON, { description: 'Body of GET /crm/v3/owners.' })
  @IsDefined()
  owners!: unknown;

  @Field(() => GraphQLJSON, { description: 'A body of GET /crm/v3/objects/deals, or an array of such pages.' })
  @IsDefined()
  deals!: unknown;

  @Field(() => Date, { nullable: true, description: 'The moment the snapshot represents; import time when omitted.' })
  @IsOptional()
  @Allow()
  snapshotAt?: Date | null;

  @Field(() => Boolean, { defaultValue: false, description: 'Also write one snapshot per past period end, reconstructed from deal dates.' })
  @IsOptional()
  @IsBoolean()
  backfill: boolean = false;

  @Field(() => String, {
    nullable: true,
    description: "The HubSpot portal's home currency (companyCurrency of GET /account-info/v3/details): deals in another currency than the configured one count with amount_in_home_currency when it is the configured one.",
  })
  @IsOptional()
  @Allow()
  homeCurrency?: string | null;
}
