import { IsBoolean, IsOptional } from 'class-validator';

/** Body of `POST /crm/syncs`, optional as a whole. */
export class CrmSyncBody {
  /** Passed to the import's guard against losing data by mistake (`409` otherwise). */
  @IsOptional()
  @IsBoolean({ message: 'must be true or false' })
  force?: boolean;
}
