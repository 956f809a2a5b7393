import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { CRM_SYNC_MODES, type CrmSyncMode } from '../../models/crm-sync.model';
import { IsEntityId } from '../../validation';

/** Body of `POST /crm/syncs`, optional as a whole. */
export class CrmSyncBody {
  /** `full` reads everything; `incremental` what changed since the last committed sync. Default: full the first time, incremental after. */
  @IsOptional()
  @IsIn(CRM_SYNC_MODES as CrmSyncMode[], { message: 'must be "full" or "incremental"' })
  mode?: CrmSyncMode;

  /** Passed to the import's guard against losing data by mistake (the run fails with the reason otherwise). */
  @IsOptional()
  @IsBoolean({ message: 'must be true or false' })
  force?: boolean;
}

/** Path `sync_id` of `GET /crm/syncs/{sync_id}`. */
export class SyncIdInput {
  @IsEntityId()
  sync_id!: string;
}

/** Query of `GET /crm/syncs`. */
export class ListSyncsQuery {
  @IsOptional()
  @IsInt({ message: 'must be a whole number' })
  @Min(1, { message: 'must be at least 1' })
  @Max(100, { message: 'must be at most 100' })
  limit: number = 20;

  @IsOptional()
  @IsString({ message: 'must be a cursor (a string)' })
  @MaxLength(512, { message: 'must be at most 512 characters' })
  cursor?: string;
}
