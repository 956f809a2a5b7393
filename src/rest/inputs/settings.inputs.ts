import { IsBoolean, IsOptional } from 'class-validator';
import type { PeriodUnit } from '../../domain/period';
import { IsCurrencyCode, IsPeriodUnit } from '../../validation';

/** Body of `POST /settings/currencies`. */
export class SetCurrencyBody {
  @IsCurrencyCode()
  currency!: string;
}

/** Body of `POST /settings/periods`. */
export class SetPeriodBody {
  @IsPeriodUnit()
  period!: PeriodUnit;

  @IsOptional()
  @IsBoolean({ message: 'must be true or false' })
  reset_targets?: boolean;
}
