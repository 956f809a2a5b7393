import { randomBytes } from 'node:crypto';
import type { AuthenticatedContext } from '../context/request-context';
import { NotFoundError } from '../errors';
import { AlertRuleModel, type AlertCondition, type AlertRuleDoc } from '../models/alert-rule.model';
import { requireAdmin } from './member-access';
import { parseMetricNames } from './metrics/select-metrics';
import { getPipeline } from './pipeline.service';

export interface AlertRuleInput {
  pipelineId: string;
  metric: string;
  condition: AlertCondition;
  value: number;
}

/**
 * Creates an alert rule (POST /alerts/rules): after each snapshot commits, `alert.triggered` when
 * the metric of the pipeline crosses the value (below: was not below on the import before, is now
 * below). Admin only; unknown metric: 400; a pipeline the latest snapshot does not have: 404.
 */
export async function createAlertRule(
  ctx: AuthenticatedContext,
  input: AlertRuleInput,
): Promise<AlertRuleDoc> {
  requireAdmin(ctx.principal, 'manage alert rules');
  const [metric] = parseMetricNames([input.metric], 'metric') ?? [];
  await getPipeline(ctx, input.pipelineId);
  const created = await AlertRuleModel.create({
    _id: `alr_${randomBytes(12).toString('hex')}`,
    pipelineId: input.pipelineId,
    metric,
    condition: input.condition,
    value: input.value,
    createdBy: ctx.principal.subject,
    createdAt: new Date(),
  });
  return created.toObject<AlertRuleDoc>();
}

/** Every rule, oldest first. Admin only. */
export async function listAlertRules(ctx: AuthenticatedContext): Promise<AlertRuleDoc[]> {
  requireAdmin(ctx.principal, 'manage alert rules');
  return AlertRuleModel.find().sort({ createdAt: 1, _id: 1 }).lean<AlertRuleDoc[]>();
}

/** Deletes a rule; 404 unknown. Admin only. */
export async function deleteAlertRule(ctx: AuthenticatedContext, id: string): Promise<void> {
  requireAdmin(ctx.principal, 'manage alert rules');
  const { deletedCount } = await AlertRuleModel.deleteOne({ _id: id });
  if (deletedCount === 0) throw new NotFoundError(`Alert rule ${id} not found`);
}
