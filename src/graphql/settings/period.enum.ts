import { registerEnumType } from 'type-graphql';
import type { PeriodUnit } from '../../domain/period';

/** The period unit of targets and time series; values are the REST strings. */
export enum Period {
  WEEKLY = 'weekly',
  MONTHLY = 'monthly',
  QUARTERLY = 'quarterly',
}

registerEnumType(Period, {
  name: 'Period',
  description:
    'Quarters are calendar quarters; week N starts on day 7·(N−1)+1 and week 52 runs to 31 December.',
});

/** The enum and the domain's union are the same strings; this keeps the compiler checking it. */
export function toPeriod(unit: PeriodUnit): Period {
  return unit as Period;
}
