import { Schema, model } from 'mongoose';

export type AlertCondition = 'below' | 'above';

/** An admin's rule: `metric` of `pipelineId` crossing `value` when a snapshot commits. */
export interface AlertRuleDoc {
  /** `alr_` and 24 hex digits. */
  _id: string;
  pipelineId: string;
  metric: string;
  condition: AlertCondition;
  value: number;
  createdBy: string;
  createdAt: Date;
}

const alertRuleSchema = new Schema<AlertRuleDoc>(
  {
    _id: { type: String, required: true },
    pipelineId: { type: String, required: true },
    metric: { type: String, required: true },
    condition: { type: String, enum: ['below', 'above'], required: true },
    value: { type: Number, required: true },
    createdBy: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { collection: 'alert_rules', versionKey: false },
);

export const AlertRuleModel = model<AlertRuleDoc>('AlertRule', alertRuleSchema);
