import { Field, Float, ID, ObjectType } from 'type-graphql';
import { listComplexity } from '../../security/field-costs';
import type {
  Forecast as ForecastView,
  ForecastFigures,
  VisibleTarget,
} from '../../services/forecasts/forecast.service';

const TARGET =
  'The target for the period, summed; null when none is set or when the caller may not read every target summed.';

@ObjectType({
  simpleResolvers: true,
  description: 'The sums of a forecast, in the configured currency.',
})
export class ForecastFiguresType {
  @Field(() => Float, { description: 'Won, with a close date in the period.' })
  closed!: number;

  @Field(() => Float, { description: 'Open COMMIT deals expected to close in the period.' })
  commit!: number;

  @Field(() => Float, { description: 'Open BEST_CASE deals expected to close in the period.' })
  bestCase!: number;

  @Field(() => Float, { description: 'Open PIPELINE deals expected to close in the period.' })
  pipeline!: number;

  @Field(() => Float, { nullable: true, description: TARGET })
  target!: number | null;
}

@ObjectType({ simpleResolvers: true, description: "One member's row of a forecast." })
export class MemberForecast extends ForecastFiguresType {
  @Field(() => ID)
  memberId!: string;

  @Field(() => ID, { nullable: true })
  teamId!: string | null;

  @Field(() => Float, {
    nullable: true,
    description: "The member's latest call; null when none, or when the caller may not read it.",
  })
  submittedCall!: number | null;

  @Field(() => Date, { nullable: true })
  submittedAt!: Date | null;
}

@ObjectType({ simpleResolvers: true, description: "One team's row of a forecast." })
export class TeamForecast extends ForecastFiguresType {
  @Field(() => ID)
  teamId!: string;

  @Field(() => Float, {
    nullable: true,
    description: "Σ of the latest calls of the team's members the caller may read.",
  })
  submittedCall!: number | null;

  @Field(() => Float, {
    nullable: true,
    description: "The latest call for the team: its manager's adjusted call.",
  })
  adjustedCall!: number | null;

  @Field(() => Date, { nullable: true })
  adjustedAt!: Date | null;
}

@ObjectType({ simpleResolvers: true, description: 'The forecast of a scope, summed.' })
export class ForecastRollup extends ForecastFiguresType {
  @Field(() => Float, {
    nullable: true,
    description:
      "Σ of the members' latest calls the caller may read (a member scope: the member's call).",
  })
  submittedCall!: number | null;

  @Field(() => Float, {
    nullable: true,
    description:
      "The latest call for the scope itself (a team's, the company's); null for a member.",
  })
  adjustedCall!: number | null;

  @Field(() => Date, { nullable: true })
  adjustedAt!: Date | null;
}

@ObjectType({
  simpleResolvers: true,
  description:
    'The forecast of a period for a scope, from the latest snapshot (GET /forecasts; docs/forecasts.md).',
})
export class Forecast {
  @Field({ description: 'The period with its year: `2026-Q4`, `2026-m11`, `2026-w47`.' })
  period!: string;

  @Field({ description: 'First day, `YYYY-MM-DD`.' })
  start!: string;

  @Field({ description: 'Last day, `YYYY-MM-DD`.' })
  end!: string;

  @Field(() => String, { nullable: true })
  currency!: string | null;

  @Field({ description: '`company`, `team:<id>` or `member:<id>`.' })
  scope!: string;

  @Field(() => ID)
  snapshotId!: string;

  @Field(() => Date)
  snapshotAt!: Date;

  @Field(() => ForecastRollup)
  rollup!: ForecastRollup;

  @Field(() => [MemberForecast], { complexity: listComplexity })
  members!: MemberForecast[];

  @Field(() => [TeamForecast], { complexity: listComplexity })
  teams!: TeamForecast[];
}

function figures(values: ForecastFigures, target: VisibleTarget): ForecastFiguresType {
  return { ...values, target: target ?? null };
}

export function toForecast(view: ForecastView): Forecast {
  return {
    period: view.period.name,
    start: view.period.slot.start,
    end: view.period.slot.end,
    currency: view.currency,
    scope: view.scope,
    snapshotId: view.snapshot.id,
    snapshotAt: view.snapshot.snapshotAt,
    rollup: {
      ...figures(view.rollup.figures, view.rollup.target),
      submittedCall: view.rollup.submittedCall,
      adjustedCall: view.rollup.adjustedCall,
      adjustedAt: view.rollup.adjustedAt,
    },
    members: view.members.map((m) => ({
      ...figures(m.figures, m.target),
      memberId: m.memberId,
      teamId: m.teamId,
      submittedCall: m.submittedCall,
      submittedAt: m.submittedAt,
    })),
    teams: view.teams.map((t) => ({
      ...figures(t.figures, t.target),
      teamId: t.teamId,
      submittedCall: t.submittedCall,
      adjustedCall: t.adjustedCall,
      adjustedAt: t.adjustedAt,
    })),
  };
}
