import { Schema, model } from 'mongoose';

/**
 * The right to import into this database, held by one import at a time across every gateway
 * instance and CLI run sharing it (src/import/import-lease.ts). One document, `_id` `import`.
 */
const importLeaseSchema = new Schema(
  {
    _id: { type: String, required: true },
    /** The import holding it. */
    holder: { type: String, required: true },
    /** When that import took it: a refused import names it. */
    startedAt: { type: Date },
    /** Past this instant the lease is free: its holder stopped without releasing it. */
    expiresAt: { type: Date, required: true },
  },
  { collection: 'import_lease', versionKey: false },
);

export const ImportLeaseModel = model('ImportLease', importLeaseSchema);
