import { InferSchemaType, Schema, model } from 'mongoose';
import { versionedScope } from '../data/versions-document';

/**
 * How a HubSpot owner maps to a member: `_id` is the HubSpot owner id. Made when an owner is
 * matched (by e-mail, case-insensitively) or created as a member; the member itself is never changed.
 */
const crmOwnerLinkSchema = new Schema(
  {
    _id: { type: String, required: true },
    memberId: { type: String, required: true },
  },
  {
    collection: 'crm_owner_links',
    timestamps: { createdAt: true, updatedAt: false },
    versionKey: false,
  },
);

crmOwnerLinkSchema.index({ memberId: 1 });

export type CrmOwnerLinkDoc = InferSchemaType<typeof crmOwnerLinkSchema> & { _id: string };

// Every write bumps the 'crm_owner_links' version counter, which caches of it are checked against.
crmOwnerLinkSchema.plugin(versionedScope('crm_owner_links'));

export const CrmOwnerLinkModel = model('CrmOwnerLink', crmOwnerLinkSchema);
