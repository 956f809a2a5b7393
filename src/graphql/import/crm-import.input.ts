import { Allow, IsBoolean, IsDefined, IsEnum, IsOptional } from 'class-validator';
import { GraphQLJSON } from 'graphql-scalars';
import { Field, InputType, registerEnumType } from 'type-graphql';

/** How an import relates to the latest snapshot (docs/importing.md). */
export enum CrmImportMode {
  FULL = 'full',
  INCREMENTAL = 'incremental',
}

registerEnumType(CrmImportMode, {
  name: 'CrmImportMode',
  description: 'Full: the whole picture. Incremental: only the deals that changed.',
});

/**
 * The HubSpot response bodies, as JSON values exactly as the API returned them (the same documents
 * as POST /crm/imports). Their structure is checked by the import service, which names bad paths.
 */
@InputType({ description: 'HubSpot CRM v3 response bodies to import, unedited.' })
export class CrmImportInput {
  @Field(() => GraphQLJSON, {
    nullable: true,
    description: 'Body of GET /crm/v3/pipelines/deals. Required unless `mode` is INCREMENTAL.',
  })
  @IsOptional()
  @Allow()
  pipelines?: unknown;

  @Field(() => GraphQLJSON, {
    nullable: true,
    description: 'Body of GET /crm/v3/owners. Required unless `mode` is INCREMENTAL.',
  })
  @IsOptional()
  @Allow()
  owners?: unknown;

  @Field(() => GraphQLJSON, {
    description: 'A body of GET /crm/v3/objects/deals, or an array of such pages.',
  })
  @IsDefined()
  deals!: unknown;

  @Field(() => Date, {
    nullable: true,
    description: 'The moment the snapshot represents; import time when omitted.',
  })
  @IsOptional()
  @Allow()
  snapshotAt?: Date | null;

  @Field(() => Boolean, {
    defaultValue: false,
    description: 'Also write one snapshot per past period end, reconstructed from deal dates.',
  })
  @IsOptional()
  @IsBoolean()
  backfill: boolean = false;

  @Field(() => CrmImportMode, {
    defaultValue: CrmImportMode.FULL,
    description:
      'FULL: the whole picture (deals left out leave). INCREMENTAL: only the deals that changed; the others keep their state, archived ones leave.',
  })
  @IsOptional()
  @IsEnum(CrmImportMode)
  mode: CrmImportMode = CrmImportMode.FULL;

  @Field(() => Boolean, {
    defaultValue: false,
    description:
      "Import even when the guard refuses (no usable deal, or a full import keeping fewer than half of the latest snapshot's deals).",
  })
  @IsOptional()
  @IsBoolean()
  force: boolean = false;

  @Field(() => String, {
    nullable: true,
    description:
      "The HubSpot portal's home currency (companyCurrency of GET /account-info/v3/details): deals in another currency than the configured one count with amount_in_home_currency when it is the configured one.",
  })
  @IsOptional()
  @Allow()
  homeCurrency?: string | null;
}
