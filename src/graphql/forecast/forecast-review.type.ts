import { Field, Float, ID, ObjectType } from 'type-graphql';
import { listComplexity } from '../../security/field-costs';
import type {
  AccuracyRow,
  ForecastAccuracy as AccuracyView,
} from '../../services/forecasts/accuracy.service';
import type { MissingCalls } from '../../services/forecasts/missing.service';
import { Role } from '../member/role.enum';
import { ForecastCadence, toCadence } from './forecast-cadence.type';

@ObjectType({ simpleResolvers: true, description: 'A call due in the current cadence interval.' })
export class MissingForecastCall {
  @Field({ description: '`member:<id>` (their own call) or `team:<id>` (the adjusted call).' })
  scope!: string;

  @Field(() => ID)
  memberId!: string;

  @Field(() => ID)
  teamId!: string;

  @Field(() => Role)
  role!: Role;

  @Field(() => Date, { nullable: true, description: 'Their latest call for the period, if any.' })
  lastSubmittedAt!: Date | null;
}

@ObjectType({
  simpleResolvers: true,
  description: 'Who has not submitted in the current cadence interval.',
})
export class ForecastMissing {
  @Field()
  period!: string;

  @Field(() => ForecastCadence)
  cadence!: ForecastCadence;

  @Field(() => Date)
  intervalStart!: Date;

  @Field(() => Date)
  intervalEnd!: Date;

  @Field(() => [MissingForecastCall], { complexity: listComplexity })
  missing!: MissingForecastCall[];
}

export function toMissing(view: MissingCalls): ForecastMissing {
  return {
    period: view.period.name,
    cadence: toCadence(view.cadence),
    intervalStart: view.interval.start,
    intervalEnd: view.interval.end,
    missing: view.missing.map((m) => ({ ...m, role: m.role as Role })),
  };
}

@ObjectType({ simpleResolvers: true, description: 'The call standing at one cadence point.' })
export class StandingForecastCall {
  @Field(() => Date)
  cadencePoint!: Date;

  @Field(() => Date)
  submittedAt!: Date;

  @Field(() => Float)
  call!: number;

  @Field(() => Float, {
    nullable: true,
    description: '(call − actual) ÷ actual × 100; null when nothing was won.',
  })
  errorPct!: number | null;
}

@ObjectType({ simpleResolvers: true })
export class ForecastAccuracyRow {
  @Field(() => Float, { description: 'Won in the period.' })
  actual!: number;

  @Field(() => [StandingForecastCall], { complexity: listComplexity })
  submissions!: StandingForecastCall[];
}

@ObjectType({ simpleResolvers: true })
export class MemberForecastAccuracy extends ForecastAccuracyRow {
  @Field(() => ID)
  memberId!: string;

  @Field(() => ID, { nullable: true })
  teamId!: string | null;
}

@ObjectType({ simpleResolvers: true })
export class TeamForecastAccuracy extends ForecastAccuracyRow {
  @Field(() => ID)
  teamId!: string;
}

@ObjectType({
  simpleResolvers: true,
  description: 'For an ended period: each call against what was won (GET /forecasts/accuracy).',
})
export class ForecastAccuracy {
  @Field()
  period!: string;

  @Field(() => String, { nullable: true })
  currency!: string | null;

  @Field()
  scope!: string;

  @Field(() => ForecastCadence, { nullable: true })
  cadence!: ForecastCadence | null;

  @Field(() => [Date], { description: 'The cadence points inside the period, then its end.' })
  cadencePoints!: Date[];

  @Field(() => ForecastAccuracyRow)
  rollup!: ForecastAccuracyRow;

  @Field(() => [MemberForecastAccuracy], { complexity: listComplexity })
  members!: MemberForecastAccuracy[];

  @Field(() => [TeamForecastAccuracy], { complexity: listComplexity })
  teams!: TeamForecastAccuracy[];
}

function row(view: AccuracyRow): ForecastAccuracyRow {
  return { actual: view.actual, submissions: view.submissions.map((s) => ({ ...s })) };
}

export function toAccuracy(view: AccuracyView): ForecastAccuracy {
  return {
    period: view.period.name,
    currency: view.currency,
    scope: view.scope,
    cadence: view.cadence ? toCadence(view.cadence) : null,
    cadencePoints: view.points,
    rollup: row(view.rollup),
    members: view.members.map((m) => ({ ...row(m), memberId: m.memberId, teamId: m.teamId })),
    teams: view.teams.map((t) => ({ ...row(t), teamId: t.teamId })),
  };
}
