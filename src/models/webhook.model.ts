import { Schema, model } from 'mongoose';

/** A webhook endpoint, as stored. */
export interface WebhookDoc {
  /** `wh_` and 24 hex digits. */
  _id: string;
  url: string;
  /** Event types delivered, or `["*"]` for all. */
  events: string[];
  filter: { pipelineId: string | null; teamId: string | null };
  description: string | null;
  /** `whsec_<base64>`: the key deliveries are signed with. */
  secret: string;
  /** The key before the last rotation, still signing beside the new one until `previousSecretUntil`. */
  previousSecret: string | null;
  previousSecretUntil: Date | null;
  enabled: boolean;
  /** Why it was disabled (410, retries exhausted, an admin), when. */
  disabledReason: string | null;
  disabledAt: Date | null;
  /** Who created it: their role at delivery time decides what target amounts it gets. */
  owner: { subject: string; memberId: string | null };
  createdAt: Date;
  updatedAt: Date;
}

const webhookSchema = new Schema<WebhookDoc>(
  {
    _id: { type: String, required: true },
    url: { type: String, required: true },
    events: { type: [String], required: true },
    filter: {
      pipelineId: { type: String, default: null },
      teamId: { type: String, default: null },
    },
    description: { type: String, default: null },
    secret: { type: String, required: true },
    previousSecret: { type: String, default: null },
    previousSecretUntil: { type: Date, default: null },
    enabled: { type: Boolean, default: true },
    disabledReason: { type: String, default: null },
    disabledAt: { type: Date, default: null },
    owner: {
      subject: { type: String, required: true },
      memberId: { type: String, default: null },
    },
  },
  { collection: 'webhooks', timestamps: true, versionKey: false },
);

export const WebhookModel = model<WebhookDoc>('Webhook', webhookSchema);
