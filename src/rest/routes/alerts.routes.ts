import { ErrorCode } from '../../errors';
import type { AlertRuleDoc } from '../../models/alert-rule.model';
import * as alerts from '../../services/alert.service';
import { envelopeSchema } from '../envelope-schema';
import { AlertRuleIdInput, CreateAlertRuleBody } from '../inputs/webhook.inputs';
import { ok, type RouteDefinition } from '../route-definition';
import { adminOnly } from '../route-roles';

const RULE_SCHEMA = {
  type: 'object',
  required: ['rule_id', 'pipeline_id', 'metric', 'condition', 'value', 'created_at'],
  properties: {
    rule_id: { type: 'string' },
    pipeline_id: { type: 'string' },
    metric: { type: 'string' },
    condition: { type: 'string', enum: ['below', 'above'] },
    value: { type: 'number' },
    created_at: { type: 'string', format: 'date-time' },
  },
};

function ruleView(rule: AlertRuleDoc): Record<string, unknown> {
  return {
    rule_id: rule._id,
    pipeline_id: rule.pipelineId,
    metric: rule.metric,
    condition: rule.condition,
    value: rule.value,
    created_at: rule.createdAt.toISOString(),
  };
}

async function deleteRule(
  ctx: Parameters<typeof alerts.deleteAlertRule>[0],
  input: AlertRuleIdInput,
) {
  await alerts.deleteAlertRule(ctx, input.id);
  return ok(`Alert rule ${input.id} deleted`, {});
}

export const alertsRoutes: RouteDefinition[] = [
  {
    method: 'POST',
    path: '/alerts/rules',
    summary:
      'Create an alert rule (admin): alert.triggered when a metric of a pipeline crosses a value as a snapshot commits',
    tag: 'Events',
    authenticated: true,
    roles: adminOnly('manage alert rules'),
    errors: [ErrorCode.NOT_FOUND],
    input: CreateAlertRuleBody,
    response: envelopeSchema({ rule: RULE_SCHEMA }, ['rule']),
    handler: async (ctx, input: CreateAlertRuleBody) => {
      const rule = await alerts.createAlertRule(ctx, {
        pipelineId: input.pipeline_id,
        metric: input.metric,
        condition: input.condition,
        value: input.value,
      });
      return ok('Alert rule created', { rule: ruleView(rule) });
    },
  } satisfies RouteDefinition<CreateAlertRuleBody>,
  {
    method: 'GET',
    path: '/alerts/rules',
    summary: 'List the alert rules (admin)',
    tag: 'Events',
    authenticated: true,
    roles: adminOnly('manage alert rules'),
    response: envelopeSchema({ rules: { type: 'array', items: RULE_SCHEMA } }, ['rules']),
    handler: async (ctx) => {
      const rules = await alerts.listAlertRules(ctx);
      return ok(`${rules.length} alert rule(s) found`, { rules: rules.map(ruleView) });
    },
  },
  {
    method: 'DELETE',
    path: '/alerts/rules/:id',
    summary: 'Delete an alert rule (admin)',
    tag: 'Events',
    authenticated: true,
    roles: adminOnly('manage alert rules'),
    input: AlertRuleIdInput,
    response: envelopeSchema({}),
    handler: deleteRule,
  } satisfies RouteDefinition<AlertRuleIdInput>,
] as RouteDefinition[];
