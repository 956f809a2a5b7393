import { Field, ObjectType } from 'type-graphql';
import { periodLabels } from '../../domain/period';
import type { AccountSettings } from '../../services/settings.service';
import { Period, toPeriod } from './period.enum';

@ObjectType({
  simpleResolvers: true,
  description: 'Account settings; each is null until an admin sets it.',
})
export class Settings {
  @Field(() => String, { nullable: true, description: 'ISO 4217 code, upper-case.' })
  currency!: string | null;

  @Field(() => Period, { nullable: true })
  period!: Period | null;

  @Field(() => [String], {
    nullable: true,
    description: 'The period labels of one year (`Q1`…`Q4`); null while the period is unset.',
  })
  periodValues!: string[] | null;
}

export function toSettings(settings: AccountSettings): Settings {
  return {
    currency: settings.currency,
    period: settings.period ? toPeriod(settings.period) : null,
    periodValues: settings.period ? periodLabels(settings.period) : null,
  };
}
