import { BadUserInputError, ErrorCode, type FieldError } from '../../errors';
import {
  getPipelineMetrics,
  type PipelineMetricsRequest,
} from '../../services/metrics/metrics.service';
import type { MetricSelection } from '../../services/metrics/select-metrics';
import type { PipelineView } from '../../domain/snapshot-views';
import { metricsStatusMessage } from '../../services/metrics/select-metrics';
import {
  getDefinition,
  listDefinitions,
  pipelinesOfDefinition,
  resolveSnapshot,
} from '../../services/pipeline.service';
import { getTimeseries } from '../../services/timeseries.service';
import {
  MetricsInput,
  PipelinesQuery,
  StagesInput,
  TimeseriesInput,
} from '../inputs/pipeline.inputs';
import type { RouteDefinition } from '../route-definition';
import { EVERY_ROLE } from '../route-roles';

const TAG = 'Pipelines';

/** `YYYY-MM-DD hh:mm:ss`, UTC: the contract's `created_at`. */
export function formatCreatedAt(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** REST renders numbers as the contract's text: `0.2`, `1`, `0`. */
function asText(value: number | boolean): string {
  return String(value);
}

const STATUS_SCHEMA = {
  type: 'object',
  required: ['message', 'success', 'statusCode'],
  properties: {
    message: { type: 'string' },
    success: { type: 'boolean' },
    statusCode: { type: 'integer' },
  },
};

function okStatus(message: string) {
  return { message, success: true as const, statusCode: 200 as const };
}

const pipelinesRoute: RouteDefinition<PipelinesQuery> = {
  method: 'GET',
  path: '/pipelines',
  cacheable: true,
  summary: 'The latest snapshot (or snapshot_id): definitions and their pipelines',
  tag: TAG,
  authenticated: true,
  roles: EVERY_ROLE,
  input: PipelinesQuery,
  errors: [ErrorCode.NOT_FOUND],
  response: {
    type: 'object',
    required: ['snapshot_id', 'created_at', 'pipeline_definitions'],
    properties: {
      snapshot_id: { type: 'string' },
      created_at: { type: 'string', description: 'YYYY-MM-DD hh:mm:ss, UTC' },
      pipeline_definitions: {
        type: 'array',
        items: {
          type: 'object',
          required: ['label', 'pipeline_definition_id', 'pipelines'],
          properties: {
            label: { type: 'string' },
            pipeline_definition_id: { type: 'string' },
            pipelines: {
              type: 'array',
              items: {
                type: 'object',
                required: ['id', 'is_sub_pipeline'],
                properties: { id: { type: 'string' }, is_sub_pipeline: { type: 'boolean' } },
              },
            },
          },
        },
      },
    },
  },
  handler: async (ctx, input) => {
    const snapshot = await resolveSnapshot(ctx, input.snapshot_id);
    const definitions = await listDefinitions(ctx, snapshot.id);
    const pipelineDefinitions = await Promise.all(
      definitions.map(async (definition) => ({
        label: definition.label,
        pipeline_definition_id: definition.id,
        pipelines: (await pipelinesOfDefinition(ctx, snapshot.id, definition.id)).map((p) => ({
          id: p.id,
          is_sub_pipeline: p.isSubPipeline,
        })),
      })),
    );
    return {
      snapshot_id: snapshot.id,
      created_at: formatCreatedAt(snapshot.snapshotAt),
      pipeline_definitions: pipelineDefinitions,
    };
  },
};

const stagesRoute: RouteDefinition<StagesInput> = {
  method: 'GET',
  path: '/pipelines/stages',
  cacheable: true,
  summary: 'The stages of a pipeline definition, ordered by order (values as text)',
  tag: TAG,
  authenticated: true,
  roles: EVERY_ROLE,
  input: StagesInput,
  errors: [ErrorCode.NOT_FOUND],
  response: {
    type: 'object',
    required: ['pipeline_definition_id', 'stages'],
    properties: {
      pipeline_definition_id: { type: 'string' },
      stages: {
        type: 'array',
        items: {
          type: 'object',
          required: ['label', 'id', 'order', 'metadata'],
          properties: {
            label: { type: 'string' },
            id: { type: 'string' },
            order: { type: 'string' },
            metadata: {
              type: 'object',
              required: ['is_closed', 'probability'],
              properties: { is_closed: { type: 'string' }, probability: { type: 'string' } },
            },
          },
        },
      },
    },
  },
  handler: async (ctx, input) => {
    const definition = await getDefinition(ctx, input.pipeline_definition_id, input.snapshot_id);
    return {
      pipeline_definition_id: definition.id,
      stages: definition.stages.map((stage) => ({
        label: stage.label,
        id: stage.id,
        order: asText(stage.order),
        metadata: { is_closed: asText(stage.isClosed), probability: asText(stage.probability) },
      })),
    };
  },
};

const metricsRequest = (input: MetricsInput): PipelineMetricsRequest => ({
  pipelineId: input.pipeline_id,
  metrics: input.metrics,
  snapshotId: input.snapshot_id,
});

const metricsAnswer = ({
  pipeline,
  selection,
}: {
  pipeline: PipelineView;
  selection: MetricSelection;
}) => ({
  metrics: selection.values.map((v) => ({
    metric_definition: { id: v.definition.id, api_codename: v.definition.apiCodename },
    scope: { pipeline: pipeline.id },
    metric_value: { value: v.value, unit: v.unit },
  })),
  status: okStatus(metricsStatusMessage(selection)),
});

const metricsRoute: RouteDefinition<MetricsInput> = {
  method: 'GET',
  path: '/pipelines/metrics',
  cacheable: true,
  summary: 'Metrics of a pipeline (all, or those named in metrics) for the period of its snapshot',
  tag: TAG,
  authenticated: true,
  roles: EVERY_ROLE,
  input: MetricsInput,
  errors: [ErrorCode.NOT_FOUND, ErrorCode.CONFLICT],
  errorShape: { kind: 'status', emptyKey: 'metrics' },
  response: {
    type: 'object',
    required: ['metrics', 'status'],
    properties: {
      metrics: {
        type: 'array',
        items: {
          type: 'object',
          required: ['metric_definition', 'scope', 'metric_value'],
          properties: {
            metric_definition: {
              type: 'object',
              required: ['id', 'api_codename'],
              properties: { id: { type: 'string' }, api_codename: { type: 'string' } },
            },
            scope: {
              type: 'object',
              required: ['pipeline'],
              properties: { pipeline: { type: 'string' } },
            },
            metric_value: {
              type: 'object',
              required: ['value', 'unit'],
              properties: { value: { type: ['number', 'null'] }, unit: { type: 'string' } },
            },
          },
        },
      },
      status: STATUS_SCHEMA,
    },
  },
  handler: async (ctx, input) => {
    return metricsAnswer(await getPipelineMetrics(ctx, metricsRequest(input)));
  },
};

const timeseriesRoute: RouteDefinition<TimeseriesInput> = {
  method: 'GET',
  path: '/pipelines/timeseries',
  cacheable: true,
  summary: 'One metric of a pipeline over the last duration periods (1-104), oldest first',
  tag: TAG,
  authenticated: true,
  roles: EVERY_ROLE,
  input: TimeseriesInput,
  errors: [ErrorCode.NOT_FOUND, ErrorCode.CONFLICT],
  errorShape: { kind: 'status', emptyKey: 'series' },
  response: {
    type: 'object',
    required: ['pipeline_id', 'metric_name', 'unit', 'period', 'series', 'status'],
    properties: {
      pipeline_id: { type: 'string' },
      metric_name: { type: 'string' },
      unit: { type: 'string' },
      period: { type: 'string', enum: ['weekly', 'monthly', 'quarterly'] },
      series: {
        type: 'array',
        items: {
          type: 'object',
          required: ['period', 'year', 'start', 'end', 'value'],
          properties: {
            period: { type: 'string' },
            year: { type: 'integer' },
            start: { type: 'string' },
            end: { type: 'string' },
            value: { type: ['number', 'null'] },
          },
        },
      },
      status: STATUS_SCHEMA,
    },
  },
  handler: async (ctx, input) => {
    // The nested form wins over the flat one when both are given.
    const metricName = input.metrics?.metric_name ?? input.metric_name;
    const duration = input.metrics?.duration ?? input.duration;
    const missing: FieldError[] = [];
    if (metricName === undefined)
      missing.push({ field: 'metrics.metric_name', message: 'is required (or metric_name)' });
    if (duration === undefined)
      missing.push({ field: 'metrics.duration', message: 'is required (or duration)' });
    if (missing.length > 0) {
      throw new BadUserInputError(
        `Invalid query parameters: ${missing.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
        missing,
      );
    }
    const series = await getTimeseries(ctx, {
      pipelineId: input.pipeline_id,
      metricName: metricName!,
      duration: duration!,
    });
    return {
      pipeline_id: series.pipelineId,
      metric_name: series.definition.apiCodename,
      unit: series.unit,
      period: series.period,
      series: series.points,
      status: okStatus('Time series found and retrieved'),
    };
  },
};

export const pipelinesRoutes: RouteDefinition[] = [
  pipelinesRoute as RouteDefinition,
  stagesRoute as RouteDefinition,
  metricsRoute as RouteDefinition,
  timeseriesRoute as RouteDefinition,
];
