import type { Principal } from '../../auth/principal';
import { Role } from '../../auth/role';
import type { AuthenticatedContext } from '../../context/request-context';
import { isMetricName, metricDefinition } from '../../domain/metric-catalogue';
import { AlertRuleModel, type AlertRuleDoc } from '../../models/alert-rule.model';
import { factsOf, getPipelineMetrics } from '../../services/metrics/metrics.service';
import { derivedFromTargets } from '../../services/metrics/target-access';
import type { EventPrivacy } from '../../models/event.model';
import { derivedEventId, type NewEvent } from '../outbox/publish';
import type { CommittedSnapshot } from '../snapshot-events';

/** Who evaluates alert rules: the system, with an admin's right to read every metric. */
export const ALERTS_PRINCIPAL: Principal = {
  subject: 'alerts',
  role: Role.ADMIN,
  memberId: null,
  teamId: null,
};

/** A metric's value, or null where it has none (pipeline absent, not computable yet, no value). */
async function valueAt(
  ctx: AuthenticatedContext,
  rule: AlertRuleDoc,
  snapshotId: string,
): Promise<{ value: number | null; teamId: string | null }> {
  try {
    const { pipeline, selection } = await getPipelineMetrics(ctx, {
      pipelineId: rule.pipelineId,
      metrics: [rule.metric],
      snapshotId,
    });
    return { value: selection.values[0]?.value ?? null, teamId: pipeline.teamId };
  } catch {
    return { value: null, teamId: null };
  }
}

function beyond(rule: AlertRuleDoc, value: number | null): boolean {
  if (value === null) return false;
  return rule.condition === 'below' ? value < rule.value : value > rule.value;
}

/**
 * The `alert.triggered` events of a snapshot's commit: each rule whose metric is beyond its value
 * on this snapshot and was not on the snapshot of the import before (below: was not below, is now
 * below), with an id derived from the rule and the snapshot. A value derived from targets goes
 * only to readers of the targets of every member of the pipeline (visibility.ts).
 */
export async function deriveAlerts(
  context: () => AuthenticatedContext,
  snapshot: CommittedSnapshot,
  previous: CommittedSnapshot | null,
): Promise<NewEvent[]> {
  if (previous === null) return [];
  const rules = await AlertRuleModel.find().lean<AlertRuleDoc[]>();
  if (rules.length === 0) return [];
  const ctx = context();
  const events: NewEvent[] = [];
  for (const rule of rules) {
    if (!isMetricName(rule.metric)) continue;
    const now = await valueAt(ctx, rule, snapshot._id);
    if (!beyond(rule, now.value)) continue;
    const before = await valueAt(ctx, rule, previous._id);
    if (beyond(rule, before.value)) continue;
    let privacy: EventPrivacy = { kind: 'public' };
    if (derivedFromTargets(metricDefinition(rule.metric))) {
      const { memberIds } = await factsOf(ctx, snapshot._id, rule.pipelineId);
      const members = await ctx.loaders.memberById.loadMany(memberIds);
      privacy = {
        kind: 'targets',
        of: members.flatMap((m) =>
          m && !(m instanceof Error) ? [{ memberId: m._id, teamId: m.teamId }] : [],
        ),
        redact: [],
      };
    }
    events.push({
      _id: derivedEventId('alert', rule._id, snapshot._id),
      type: 'alert.triggered',
      at: new Date(),
      data: {
        rule_id: rule._id,
        pipeline_id: rule.pipelineId,
        metric: rule.metric,
        condition: rule.condition,
        threshold: rule.value,
        value: now.value,
        previous_value: before.value,
        snapshot_id: snapshot._id,
      },
      audience: { pipelineIds: [rule.pipelineId], teamIds: now.teamId ? [now.teamId] : [] },
      privacy,
    });
  }
  return events;
}
