import { IsBoolean, IsDefined, IsIn, IsOptional, IsString, ValidateIf } from 'class-validator';
import { IMPORT_MODES, type ImportMode } from '../../import/validate-documents';

/**
 * Body of `POST /crm/imports`: HubSpot response bodies as returned. Only presence is checked here;
 * the import service checks their structure and names the bad path (`pipelines.results[0].id`).
 */
export class CrmImportBody {
  /** Body of GET /crm/v3/pipelines/deals; an incremental import may leave it out. */
  @ValidateIf((body: CrmImportBody) => body.mode !== 'incremental')
  @IsDefined({ message: 'is required: the body of HubSpot GET /crm/v3/pipelines/deals' })
  pipelines?: unknown;

  /** Body of GET /crm/v3/owners; an incremental import may leave it out. */
  @ValidateIf((body: CrmImportBody) => body.mode !== 'incremental')
  @IsDefined({ message: 'is required: the body of HubSpot GET /crm/v3/owners' })
  owners?: unknown;

  /** A body of GET /crm/v3/objects/deals, or an array of such pages. */
  @IsDefined({
    message: 'is required: a body of HubSpot GET /crm/v3/objects/deals, or an array of such pages',
  })
  deals!: unknown;

  /** `full` (default): the whole picture; `incremental`: only the deals that changed. */
  @IsOptional()
  @IsIn(IMPORT_MODES as ImportMode[], { message: 'must be "full" or "incremental"' })
  mode?: ImportMode;

  /** Overrides the guard against losing data by mistake (409). */
  @IsOptional()
  @IsBoolean({ message: 'must be true or false' })
  force?: boolean;

  /** ISO 8601 date-time with a zone; import time when omitted. */
  @IsOptional()
  @IsString({ message: 'must be an ISO 8601 date-time such as "2026-03-31T23:59:59Z"' })
  snapshot_at?: string;

  @IsOptional()
  @IsBoolean({ message: 'must be true or false' })
  backfill?: boolean;

  /** The portal's home currency (`companyCurrency` of GET /account-info/v3/details), for `amount_in_home_currency`. */
  @IsOptional()
  @IsString({ message: 'must be an ISO 4217 code such as EUR or USD' })
  home_currency?: string;
}
