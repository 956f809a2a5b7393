import { ErrorCode } from '../../errors';
import type { SnapshotView } from '../../domain/snapshot-views';
import {
  getMovement,
  movementDeals,
  parseMovementKind,
  type MovementRequest,
  type PipelineMovement,
} from '../../services/analytics/movement.service';
import { getSlippedDeals } from '../../services/analytics/slipped-deals.service';
import { getStageAnalytics } from '../../services/analytics/stage-analytics.service';
import {
  MovementDealsInput,
  MovementInput,
  SlippedDealsInput,
  StageAnalyticsInput,
} from '../inputs/analytics.inputs';
import type { RouteDefinition } from '../route-definition';
import { EVERY_ROLE } from '../route-roles';
import { formatCreatedAt } from './pipelines.routes';

const TAG = 'Pipelines';

const STATUS_SCHEMA = {
  type: 'object',
  required: ['message', 'success', 'statusCode'],
  properties: {
    message: { type: 'string' },
    success: { type: 'boolean' },
    statusCode: { type: 'integer' },
  },
};

const okStatus = (message: string) => ({
  message,
  success: true as const,
  statusCode: 200 as const,
});

const NULLABLE_STRING = { type: ['string', 'null'] };
const NULLABLE_NUMBER = { type: ['number', 'null'] };

const SNAPSHOT_SCHEMA = {
  type: 'object',
  required: ['snapshot_id', 'snapshot_at'],
  properties: {
    snapshot_id: { type: 'string' },
    snapshot_at: { type: 'string', description: 'YYYY-MM-DD hh:mm:ss, UTC' },
  },
};

const TALLY_SCHEMA = {
  type: 'object',
  required: ['count', 'amount'],
  properties: { count: { type: 'integer' }, amount: { type: 'number' } },
};

const snapshotOf = (snapshot: SnapshotView) => ({
  snapshot_id: snapshot.id,
  snapshot_at: formatCreatedAt(snapshot.snapshotAt),
});

const amount = (cents: number) => cents / 100;

const MOVEMENT_FIELDS = {
  pipeline_id: { type: 'string' },
  currency: NULLABLE_STRING,
  window: {
    type: ['object', 'null'],
    required: ['start', 'end'],
    properties: { start: { type: 'string' }, end: { type: 'string' } },
  },
  from: SNAPSHOT_SCHEMA,
  to: SNAPSHOT_SCHEMA,
};

const movementHead = (answer: PipelineMovement) => ({
  pipeline_id: answer.pipelineId,
  currency: answer.currency,
  window: answer.window,
  from: snapshotOf(answer.from),
  to: snapshotOf(answer.to),
});

const movementRequest = (input: MovementInput): MovementRequest => ({
  pipelineId: input.pipeline_id,
  from: input.from,
  to: input.to,
  closeWindow: input.close_window,
});

const SPAN_ERRORS = [ErrorCode.NOT_FOUND, ErrorCode.CONFLICT] as const;

const movementRoute: RouteDefinition<MovementInput> = {
  method: 'GET',
  path: '/pipelines/movement',
  cacheable: true,
  summary:
    'What moved in a pipeline between two dates or snapshots: opening and closing open pipeline, every deal in one bucket',
  tag: TAG,
  authenticated: true,
  roles: EVERY_ROLE,
  input: MovementInput,
  errors: SPAN_ERRORS,
  errorShape: { kind: 'status', emptyKey: 'buckets' },
  response: {
    type: 'object',
    required: [...Object.keys(MOVEMENT_FIELDS), 'opening', 'closing', 'buckets', 'status'],
    properties: {
      ...MOVEMENT_FIELDS,
      opening: TALLY_SCHEMA,
      closing: TALLY_SCHEMA,
      buckets: {
        type: 'array',
        items: {
          type: 'object',
          required: ['kind', 'count', 'amount'],
          properties: {
            kind: { type: 'string' },
            count: { type: 'integer' },
            amount: { type: 'number' },
          },
        },
      },
      status: STATUS_SCHEMA,
    },
  },
  handler: async (ctx, input) => {
    const answer = await getMovement(ctx, movementRequest(input));
    const { opening, closing, buckets } = answer.movement;
    return {
      ...movementHead(answer),
      opening: { count: opening.count, amount: amount(opening.cents) },
      closing: { count: closing.count, amount: amount(closing.cents) },
      buckets: buckets.map((b) => ({ kind: b.kind, count: b.count, amount: amount(b.cents) })),
      status: okStatus('Pipeline movement computed'),
    };
  },
};

const movementDealsRoute: RouteDefinition<MovementDealsInput> = {
  method: 'GET',
  path: '/pipelines/movement/deals',
  cacheable: true,
  summary:
    'The deals of one bucket of a pipeline movement, by deal id, paginated with limit and cursor',
  tag: TAG,
  authenticated: true,
  roles: EVERY_ROLE,
  input: MovementDealsInput,
  errors: SPAN_ERRORS,
  errorShape: { kind: 'status', emptyKey: 'deals' },
  response: {
    type: 'object',
    required: [
      ...Object.keys(MOVEMENT_FIELDS),
      'bucket',
      'count',
      'deals',
      'next_cursor',
      'status',
    ],
    properties: {
      ...MOVEMENT_FIELDS,
      bucket: { type: 'string' },
      count: { type: 'integer' },
      deals: {
        type: 'array',
        items: {
          type: 'object',
          required: [
            'deal_id',
            'name',
            'owner_member_id',
            'amount_from',
            'amount_to',
            'close_date_from',
            'close_date_to',
            'stage_from',
            'stage_to',
          ],
          properties: {
            deal_id: { type: 'string' },
            name: { type: 'string' },
            owner_member_id: NULLABLE_STRING,
            amount_from: NULLABLE_NUMBER,
            amount_to: NULLABLE_NUMBER,
            close_date_from: NULLABLE_STRING,
            close_date_to: NULLABLE_STRING,
            stage_from: NULLABLE_STRING,
            stage_to: NULLABLE_STRING,
          },
        },
      },
      next_cursor: NULLABLE_STRING,
      status: STATUS_SCHEMA,
    },
  },
  handler: async (ctx, input) => {
    const kind = parseMovementKind(input.bucket);
    const answer = await getMovement(ctx, movementRequest(input));
    const page = await movementDeals(ctx, answer, kind, {
      first: input.limit,
      after: input.cursor,
    });
    return {
      ...movementHead(answer),
      bucket: kind,
      count: page.totalCount,
      deals: page.nodes.map((deal) => ({
        deal_id: deal.dealId,
        name: deal.name,
        owner_member_id: deal.ownerMemberId,
        amount_from: deal.amountFrom,
        amount_to: deal.amountTo,
        close_date_from: deal.closeDateFrom,
        close_date_to: deal.closeDateTo,
        stage_from: deal.stageFrom,
        stage_to: deal.stageTo,
      })),
      next_cursor: page.hasNextPage ? page.endCursor : null,
      status: okStatus(`${page.totalCount} deal(s) in bucket ${kind}`),
    };
  },
};

const stageAnalyticsRoute: RouteDefinition<StageAnalyticsInput> = {
  method: 'GET',
  path: '/pipelines/stage-analytics',
  cacheable: true,
  summary:
    'Per stage, the deals that entered it between two dates: advanced, won, lost, still open, conversion and days in stage',
  tag: TAG,
  authenticated: true,
  roles: EVERY_ROLE,
  input: StageAnalyticsInput,
  errors: [ErrorCode.NOT_FOUND],
  errorShape: { kind: 'status', emptyKey: 'stages' },
  response: {
    type: 'object',
    required: ['pipeline_id', 'from', 'to', 'snapshot', 'stages', 'status'],
    properties: {
      pipeline_id: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      snapshot: SNAPSHOT_SCHEMA,
      stages: {
        type: 'array',
        items: {
          type: 'object',
          required: [
            'stage_id',
            'label',
            'entered',
            'advanced',
            'won',
            'lost',
            'still_open',
            'conversion_rate',
            'win_rate_from_stage',
            'median_days_in_stage',
            'average_days_in_stage',
          ],
          properties: {
            stage_id: { type: 'string' },
            label: { type: 'string' },
            entered: { type: 'integer' },
            advanced: { type: 'integer' },
            won: { type: 'integer' },
            lost: { type: 'integer' },
            still_open: { type: 'integer' },
            conversion_rate: NULLABLE_NUMBER,
            win_rate_from_stage: NULLABLE_NUMBER,
            median_days_in_stage: NULLABLE_NUMBER,
            average_days_in_stage: NULLABLE_NUMBER,
          },
        },
      },
      status: STATUS_SCHEMA,
    },
  },
  handler: async (ctx, input) => {
    const answer = await getStageAnalytics(ctx, {
      pipelineId: input.pipeline_id,
      from: input.from,
      to: input.to,
    });
    return {
      pipeline_id: answer.pipelineId,
      from: answer.from,
      to: answer.to,
      snapshot: snapshotOf(answer.snapshot),
      stages: answer.stages.map((s) => ({
        stage_id: s.stageId,
        label: s.label,
        entered: s.entered,
        advanced: s.advanced,
        won: s.won,
        lost: s.lost,
        still_open: s.stillOpen,
        conversion_rate: s.conversionRate,
        win_rate_from_stage: s.winRateFromStage,
        median_days_in_stage: s.medianDaysInStage,
        average_days_in_stage: s.averageDaysInStage,
      })),
      status: okStatus('Stage analytics computed'),
    };
  },
};

const slippedDealsRoute: RouteDefinition<SlippedDealsInput> = {
  method: 'GET',
  path: '/pipelines/slipped-deals',
  cacheable: true,
  summary:
    'Open deals whose close date moved later between two dates or snapshots, the most days pushed first',
  tag: TAG,
  authenticated: true,
  roles: EVERY_ROLE,
  input: SlippedDealsInput,
  errors: [ErrorCode.NOT_FOUND],
  errorShape: { kind: 'status', emptyKey: 'deals' },
  response: {
    type: 'object',
    required: ['pipeline_id', 'from', 'to', 'count', 'deals', 'next_cursor', 'status'],
    properties: {
      pipeline_id: { type: 'string' },
      from: SNAPSHOT_SCHEMA,
      to: SNAPSHOT_SCHEMA,
      count: { type: 'integer' },
      deals: {
        type: 'array',
        items: {
          type: 'object',
          required: [
            'deal_id',
            'name',
            'owner_member_id',
            'stage_id',
            'amount',
            'times_pushed',
            'days_pushed',
            'close_date_first',
            'close_date_now',
          ],
          properties: {
            deal_id: { type: 'string' },
            name: { type: 'string' },
            owner_member_id: NULLABLE_STRING,
            stage_id: { type: 'string' },
            amount: { type: 'number' },
            times_pushed: { type: 'integer' },
            days_pushed: { type: ['integer', 'null'] },
            close_date_first: NULLABLE_STRING,
            close_date_now: NULLABLE_STRING,
          },
        },
      },
      next_cursor: NULLABLE_STRING,
      status: STATUS_SCHEMA,
    },
  },
  handler: async (ctx, input) => {
    const answer = await getSlippedDeals(ctx, {
      pipelineId: input.pipeline_id,
      from: input.from,
      to: input.to,
      first: input.limit,
      after: input.cursor,
    });
    return {
      pipeline_id: answer.pipelineId,
      from: snapshotOf(answer.from),
      to: snapshotOf(answer.to),
      count: answer.totalCount,
      deals: answer.nodes.map((d) => ({
        deal_id: d.dealId,
        name: d.name,
        owner_member_id: d.ownerMemberId,
        stage_id: d.stageId,
        amount: d.amount,
        times_pushed: d.timesPushed,
        days_pushed: d.daysPushed,
        close_date_first: d.closeDateFirst,
        close_date_now: d.closeDateNow,
      })),
      next_cursor: answer.hasNextPage ? answer.endCursor : null,
      status: okStatus(`${answer.totalCount} slipped deal(s)`),
    };
  },
};

export const analyticsRoutes: RouteDefinition[] = [
  movementRoute as RouteDefinition,
  movementDealsRoute as RouteDefinition,
  stageAnalyticsRoute as RouteDefinition,
  slippedDealsRoute as RouteDefinition,
];
