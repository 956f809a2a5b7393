import { IsBoolean, IsOptional, IsString } from 'class-validator';
import { ArgsType, Field } from 'type-graphql';
import { IsCurrencyCode, IsPeriodUnit } from '../../validation/rules';
import { Period } from './period.enum';

@ArgsType()
export class SetCurrencyArgs {
  @Field({ description: 'ISO 4217 alphabetic code in any case; stored upper-case.' })
  @IsString()
  @IsCurrencyCode()
  currency!: string;
}

@ArgsType()
export class SetPeriodArgs {
  @Field(() => Period)
  @IsPeriodUnit()
  period!: Period;

  @Field(() => Boolean, {
    defaultValue: false,
    description: 'Delete every target set so the period may change.',
  })
  @IsOptional()
  @IsBoolean()
  resetTargets: boolean = false;
}
