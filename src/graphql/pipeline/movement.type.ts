import { Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { MovementKind as MovementKindValue } from '../../domain/movement';
import type {
  MovementDeal as MovementDealView,
  PipelineMovement as MovementAnswer,
} from '../../services/analytics/movement.service';
import { bucketsComplexity, countedListComplexity } from '../../security/field-costs';
import { PageInfo } from '../member/page-info.type';
import { PipelineSnapshot, toPipelineSnapshot } from './pipeline-snapshot.type';

/** The buckets of a movement; values are the REST `kind`s. */
export enum MovementKind {
  WON = 'won',
  LOST = 'lost',
  REMOVED = 'removed',
  MOVED_OUT = 'moved_out',
  PUSHED_OUT = 'pushed_out',
  CREATED = 'created',
  MOVED_IN = 'moved_in',
  PULLED_IN = 'pulled_in',
  INCREASED = 'increased',
  DECREASED = 'decreased',
  UNCHANGED = 'unchanged',
}

registerEnumType(MovementKind, {
  name: 'MovementKind',
  description:
    'The bucket a deal falls in, by the first rule that applies (docs/analytics.md): WON, LOST, REMOVED, MOVED_OUT, PUSHED_OUT and ' +
    'DECREASED take value out of the open pipeline; CREATED, MOVED_IN, PULLED_IN and INCREASED add value; UNCHANGED is counted only.',
});

@ObjectType({ simpleResolvers: true, description: 'A number of deals and their amount.' })
export class MovementTally {
  @Field(() => Int)
  count!: number;

  @Field(() => Float, { description: 'In the configured currency, to the cent.' })
  amount!: number;
}

@ObjectType({ simpleResolvers: true, description: 'The close dates counted, both days included.' })
export class CloseWindow {
  @Field({ description: 'YYYY-MM-DD' })
  start!: string;

  @Field({ description: 'YYYY-MM-DD' })
  end!: string;
}

@ObjectType({
  simpleResolvers: true,
  description:
    'One deal of a bucket: its state at `from` and at `to` (null where it was not in the definition).',
})
export class MovementDeal {
  @Field(() => ID)
  dealId!: string;

  @Field()
  name!: string;

  @Field(() => ID, { nullable: true, description: 'The owner at `to`, else at `from`.' })
  ownerMemberId!: string | null;

  @Field(() => Float, { nullable: true })
  amountFrom!: number | null;

  @Field(() => Float, { nullable: true })
  amountTo!: number | null;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD' })
  closeDateFrom!: string | null;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD' })
  closeDateTo!: string | null;

  @Field(() => ID, { nullable: true })
  stageFrom!: string | null;

  @Field(() => ID, { nullable: true })
  stageTo!: string | null;
}

@ObjectType({
  simpleResolvers: true,
  description:
    "A page of a bucket's deals, in deal-id order. `nodes` rather than edges: a movement's deals sit deep in a query (pipeline, movement, buckets), and edges would take them past the depth limit.",
})
export class MovementDealConnection {
  @Field(() => Int, { description: 'Deals in the bucket, all pages.' })
  totalCount!: number;

  @Field(() => [MovementDeal], { complexity: countedListComplexity })
  nodes!: MovementDeal[];

  @Field(() => PageInfo, { description: '`endCursor` is the `after` of the next page.' })
  pageInfo!: PageInfo;
}

/** A bucket of a movement; `deals` is a field resolver (pipeline-analytics.resolver.ts). */
@ObjectType({ simpleResolvers: true })
export class MovementBucket {
  @Field(() => MovementKind)
  kind!: MovementKind;

  @Field(() => Int)
  count!: number;

  @Field(() => Float, {
    description:
      'In the configured currency, to the cent: opening amounts of deals leaving, closing amounts of deals entering, the sum of the changes for INCREASED and DECREASED, 0 for UNCHANGED.',
  })
  amount!: number;

  /** Not a GraphQL field: the movement the deals are read from. */
  answer!: MovementAnswer;
}

@ObjectType({
  simpleResolvers: true,
  description:
    'What moved in a pipeline between two snapshots: opening + Σ(+) − Σ(−) = closing, for amounts and counts (docs/analytics.md).',
})
export class PipelineMovement {
  @Field(() => ID)
  pipelineId!: string;

  @Field(() => String, {
    nullable: true,
    description: 'The configured currency; null while not set.',
  })
  currency!: string | null;

  @Field(() => CloseWindow, { nullable: true, description: 'null: every close date (`all`).' })
  window!: CloseWindow | null;

  @Field(() => PipelineSnapshot)
  from!: PipelineSnapshot;

  @Field(() => PipelineSnapshot)
  to!: PipelineSnapshot;

  @Field(() => MovementTally, { description: 'The open pipeline at `from`.' })
  opening!: MovementTally;

  @Field(() => MovementTally, { description: 'The open pipeline at `to`.' })
  closing!: MovementTally;

  @Field(() => [MovementBucket], { complexity: bucketsComplexity })
  buckets!: MovementBucket[];
}

export const toMovementKind = (kind: MovementKindValue) => kind as MovementKind;

export function toPipelineMovement(answer: MovementAnswer): PipelineMovement {
  const { opening, closing, buckets } = answer.movement;
  return {
    pipelineId: answer.pipelineId,
    currency: answer.currency,
    window: answer.window,
    from: toPipelineSnapshot(answer.from),
    to: toPipelineSnapshot(answer.to),
    opening: { count: opening.count, amount: opening.cents / 100 },
    closing: { count: closing.count, amount: closing.cents / 100 },
    buckets: buckets.map((b) => ({
      kind: toMovementKind(b.kind),
      count: b.count,
      amount: b.cents / 100,
      answer,
    })),
  };
}

export function toMovementDeal(deal: MovementDealView): MovementDeal {
  return { ...deal };
}
