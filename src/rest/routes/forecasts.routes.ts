import { EVERY_ROLE } from '../route-roles';
import type { ForecastCall } from '../../domain/forecast-calls';
import { ErrorCode } from '../../errors';
import { getAccuracy, type AccuracyRow } from '../../services/forecasts/accuracy.service';
import {
  getForecast,
  type ForecastFigures,
  type VisibleTarget,
} from '../../services/forecasts/forecast.service';
import { missingSubmissions } from '../../services/forecasts/missing.service';
import { listSubmissions, submitForecast } from '../../services/forecasts/submission.service';
import { envelopeSchema } from '../envelope-schema';
import {
  ForecastQuery,
  ListSubmissionsQuery,
  MissingQuery,
  SubmitForecastBody,
} from '../inputs/forecast.inputs';
import { ok, type RouteDefinition } from '../route-definition';

const TAG = 'Forecasts';

const DATE = { type: 'string', format: 'date' } as const;
const DATE_TIME = { type: 'string', format: 'date-time' } as const;
const NULLABLE_DATE_TIME = { type: ['string', 'null'], format: 'date-time' } as const;
const AMOUNT = { type: 'number' } as const;
const NULLABLE_AMOUNT = { type: ['number', 'null'] } as const;

const FIGURES = {
  closed: AMOUNT,
  commit: AMOUNT,
  best_case: AMOUNT,
  pipeline: AMOUNT,
  target: {
    ...NULLABLE_AMOUNT,
    description: 'Left out when the caller may not read every target summed.',
  },
} as const;
const FIGURE_NAMES = ['closed', 'commit', 'best_case', 'pipeline'];

function figures(values: ForecastFigures, target: VisibleTarget) {
  return {
    closed: values.closed,
    commit: values.commit,
    best_case: values.bestCase,
    pipeline: values.pipeline,
    ...(target === undefined ? {} : { target }),
  };
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

const PERIOD_FIELDS = {
  period: { type: 'string', description: 'The period with its year: 2026-Q4, 2026-m11, 2026-w47.' },
  start: DATE,
  end: DATE,
  currency: { type: ['string', 'null'] },
  scope: { type: 'string' },
} as const;

const FORECAST_RESPONSE = envelopeSchema(
  {
    ...PERIOD_FIELDS,
    snapshot_id: { type: 'string' },
    snapshot_at: DATE_TIME,
    rollup: {
      type: 'object',
      required: [...FIGURE_NAMES, 'submitted_call', 'adjusted_call', 'adjusted_at'],
      properties: {
        ...FIGURES,
        submitted_call: NULLABLE_AMOUNT,
        adjusted_call: NULLABLE_AMOUNT,
        adjusted_at: NULLABLE_DATE_TIME,
      },
    },
    members: {
      type: 'array',
      items: {
        type: 'object',
        required: ['member_id', 'team_id', ...FIGURE_NAMES, 'submitted_call', 'submitted_at'],
        properties: {
          member_id: { type: 'string' },
          team_id: { type: ['string', 'null'] },
          ...FIGURES,
          submitted_call: NULLABLE_AMOUNT,
          submitted_at: NULLABLE_DATE_TIME,
        },
      },
    },
    teams: {
      type: 'array',
      items: {
        type: 'object',
        required: ['team_id', ...FIGURE_NAMES, 'submitted_call', 'adjusted_call', 'adjusted_at'],
        properties: {
          team_id: { type: 'string' },
          ...FIGURES,
          submitted_call: NULLABLE_AMOUNT,
          adjusted_call: NULLABLE_AMOUNT,
          adjusted_at: NULLABLE_DATE_TIME,
        },
      },
    },
  },
  [
    'period',
    'start',
    'end',
    'currency',
    'scope',
    'snapshot_id',
    'snapshot_at',
    'rollup',
    'members',
    'teams',
  ],
);

const getForecastRoute: RouteDefinition<ForecastQuery> = {
  method: 'GET',
  path: '/forecasts',
  cacheable: true,
  summary:
    'The forecast of a period: closed, commit, best case, pipeline per member, team and scope, with the latest calls and, where readable, targets',
  tag: TAG,
  authenticated: true,
  roles: EVERY_ROLE,
  errors: [ErrorCode.NOT_FOUND, ErrorCode.CONFLICT],
  input: ForecastQuery,
  response: FORECAST_RESPONSE,
  handler: async (ctx, input) => {
    const forecast = await getForecast(ctx, input);
    return ok(`Forecast of ${forecast.scope} for ${forecast.period.name}`, {
      period: forecast.period.name,
      start: forecast.period.slot.start,
      end: forecast.period.slot.end,
      currency: forecast.currency,
      scope: forecast.scope,
      snapshot_id: forecast.snapshot.id,
      snapshot_at: forecast.snapshot.snapshotAt.toISOString(),
      rollup: {
        ...figures(forecast.rollup.figures, forecast.rollup.target),
        submitted_call: forecast.rollup.submittedCall,
        adjusted_call: forecast.rollup.adjustedCall,
        adjusted_at: iso(forecast.rollup.adjustedAt),
      },
      members: forecast.members.map((m) => ({
        member_id: m.memberId,
        team_id: m.teamId,
        ...figures(m.figures, m.target),
        submitted_call: m.submittedCall,
        submitted_at: iso(m.submittedAt),
      })),
      teams: forecast.teams.map((t) => ({
        team_id: t.teamId,
        ...figures(t.figures, t.target),
        submitted_call: t.submittedCall,
        adjusted_call: t.adjustedCall,
        adjusted_at: iso(t.adjustedAt),
      })),
    });
  },
};

const SUBMISSION = {
  type: 'object',
  required: [
    'submission_id',
    'period',
    'scope',
    'call',
    'best_case',
    'note',
    'submitted_at',
    'submitted_by',
  ],
  properties: {
    submission_id: { type: 'string' },
    period: { type: 'string' },
    scope: { type: 'string' },
    call: AMOUNT,
    best_case: NULLABLE_AMOUNT,
    note: { type: ['string', 'null'] },
    submitted_at: DATE_TIME,
    submitted_by: {
      type: 'object',
      required: ['member_id', 'role'],
      properties: { member_id: { type: ['string', 'null'] }, role: { type: 'string' } },
    },
  },
} as const;

function toRestSubmission(call: ForecastCall) {
  return {
    submission_id: call.id,
    period: call.period,
    scope: call.scope,
    call: call.call,
    best_case: call.bestCase,
    note: call.note,
    submitted_at: call.submittedAt.toISOString(),
    submitted_by: { member_id: call.submittedBy.memberId, role: call.submittedBy.role },
  };
}

const submitRoute: RouteDefinition<SubmitForecastBody> = {
  method: 'POST',
  path: '/forecasts/submissions',
  summary:
    "Submit a forecast call: a member's own, a manager's adjusted call for their team, an admin's for the company",
  tag: TAG,
  authenticated: true,
  roles: EVERY_ROLE,
  errors: [ErrorCode.NOT_FOUND, ErrorCode.CONFLICT],
  input: SubmitForecastBody,
  response: envelopeSchema({ submission: SUBMISSION }, ['submission']),
  handler: async (ctx, input) => {
    const call = await submitForecast(ctx, {
      period: input.period,
      call: input.call,
      bestCase: input.best_case,
      note: input.note,
      scope: input.scope,
    });
    return ok(`Call for ${call.scope} in ${call.period} submitted`, {
      submission: toRestSubmission(call),
    });
  },
};

const listSubmissionsRoute: RouteDefinition<ListSubmissionsQuery> = {
  method: 'GET',
  path: '/forecasts/submissions',
  cacheable: true,
  summary: 'The calls of a period within a scope, newest first, a page at a time',
  tag: TAG,
  authenticated: true,
  roles: EVERY_ROLE,
  errors: [ErrorCode.NOT_FOUND, ErrorCode.CONFLICT],
  input: ListSubmissionsQuery,
  response: envelopeSchema(
    {
      period: { type: 'string' },
      scope: { type: 'string' },
      submissions: { type: 'array', items: SUBMISSION },
      next_cursor: { type: ['string', 'null'] },
    },
    ['period', 'scope', 'submissions', 'next_cursor'],
  ),
  handler: async (ctx, input) => {
    const page = await listSubmissions(ctx, input);
    return ok(`${page.calls.length} call(s) of ${page.scope} for ${page.period}`, {
      period: page.period,
      scope: page.scope,
      submissions: page.calls.map(toRestSubmission),
      next_cursor: page.nextCursor,
    });
  },
};

const CADENCE = {
  type: 'object',
  required: ['every', 'day'],
  properties: {
    every: { type: 'string', enum: ['week', 'month'] },
    day: { type: ['string', 'integer'] },
  },
} as const;

const missingRoute: RouteDefinition<MissingQuery> = {
  method: 'GET',
  path: '/forecasts/missing',
  cacheable: true,
  summary: 'Who has not submitted a call for the period in the current cadence interval',
  tag: TAG,
  authenticated: true,
  roles: EVERY_ROLE,
  errors: [ErrorCode.CONFLICT],
  input: MissingQuery,
  response: envelopeSchema(
    {
      period: { type: 'string' },
      cadence: CADENCE,
      interval: {
        type: 'object',
        required: ['start', 'end'],
        properties: { start: DATE_TIME, end: DATE_TIME },
      },
      missing: {
        type: 'array',
        items: {
          type: 'object',
          required: ['scope', 'member_id', 'team_id', 'role', 'last_submitted_at'],
          properties: {
            scope: { type: 'string' },
            member_id: { type: 'string' },
            team_id: { type: 'string' },
            role: { type: 'string' },
            last_submitted_at: NULLABLE_DATE_TIME,
          },
        },
      },
    },
    ['period', 'cadence', 'interval', 'missing'],
  ),
  handler: async (ctx, input) => {
    const result = await missingSubmissions(ctx, input);
    return ok(`${result.missing.length} call(s) missing for ${result.period.name}`, {
      period: result.period.name,
      cadence: result.cadence,
      interval: {
        start: result.interval.start.toISOString(),
        end: result.interval.end.toISOString(),
      },
      missing: result.missing.map((m) => ({
        scope: m.scope,
        member_id: m.memberId,
        team_id: m.teamId,
        role: m.role,
        last_submitted_at: iso(m.lastSubmittedAt),
      })),
    });
  },
};

const ACCURACY_ROW = {
  actual: AMOUNT,
  submissions: {
    type: 'array',
    items: {
      type: 'object',
      required: ['cadence_point', 'submitted_at', 'call', 'error_pct'],
      properties: {
        cadence_point: DATE_TIME,
        submitted_at: DATE_TIME,
        call: AMOUNT,
        error_pct: NULLABLE_AMOUNT,
      },
    },
  },
} as const;

function toRestAccuracy(row: AccuracyRow) {
  return {
    actual: row.actual,
    submissions: row.submissions.map((s) => ({
      cadence_point: s.cadencePoint.toISOString(),
      submitted_at: s.submittedAt.toISOString(),
      call: s.call,
      error_pct: s.errorPct,
    })),
  };
}

const accuracyRoute: RouteDefinition<ForecastQuery> = {
  method: 'GET',
  path: '/forecasts/accuracy',
  cacheable: true,
  summary:
    'For an ended period: the call standing at each cadence point against what was won, per member, team and scope',
  tag: TAG,
  authenticated: true,
  roles: EVERY_ROLE,
  errors: [ErrorCode.NOT_FOUND, ErrorCode.CONFLICT],
  input: ForecastQuery,
  response: envelopeSchema(
    {
      ...PERIOD_FIELDS,
      cadence: { ...CADENCE, type: ['object', 'null'] },
      cadence_points: { type: 'array', items: DATE_TIME },
      rollup: { type: 'object', required: ['actual', 'submissions'], properties: ACCURACY_ROW },
      members: {
        type: 'array',
        items: {
          type: 'object',
          required: ['member_id', 'team_id', 'actual', 'submissions'],
          properties: {
            member_id: { type: 'string' },
            team_id: { type: ['string', 'null'] },
            ...ACCURACY_ROW,
          },
        },
      },
      teams: {
        type: 'array',
        items: {
          type: 'object',
          required: ['team_id', 'actual', 'submissions'],
          properties: { team_id: { type: 'string' }, ...ACCURACY_ROW },
        },
      },
    },
    [
      'period',
      'start',
      'end',
      'currency',
      'scope',
      'cadence',
      'cadence_points',
      'rollup',
      'members',
      'teams',
    ],
  ),
  handler: async (ctx, input) => {
    const accuracy = await getAccuracy(ctx, input);
    return ok(`Accuracy of ${accuracy.scope} for ${accuracy.period.name}`, {
      period: accuracy.period.name,
      start: accuracy.period.slot.start,
      end: accuracy.period.slot.end,
      currency: accuracy.currency,
      scope: accuracy.scope,
      cadence: accuracy.cadence,
      cadence_points: accuracy.points.map((p) => p.toISOString()),
      rollup: toRestAccuracy(accuracy.rollup),
      members: accuracy.members.map((m) => ({
        member_id: m.memberId,
        team_id: m.teamId,
        ...toRestAccuracy(m),
      })),
      teams: accuracy.teams.map((t) => ({ team_id: t.teamId, ...toRestAccuracy(t) })),
    });
  },
};

export const forecastsRoutes: RouteDefinition[] = [
  getForecastRoute,
  submitRoute,
  listSubmissionsRoute,
  missingRoute,
  accuracyRoute,
] as RouteDefinition[];
