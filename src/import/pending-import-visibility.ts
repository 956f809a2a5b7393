import type { Aggregate, MongooseQueryMiddleware, Query, Schema } from 'mongoose';

/**
 * The query option that lets a query see what an uncommitted import created. Only the import
 * (creating, publishing) and its clean-up set it; every read a caller's request makes leaves it out.
 */
export const INCLUDE_PENDING_IMPORTS = { includePendingImports: true } as const;

// Every query operation that takes a filter (estimatedDocumentCount takes none and is not used).
const FILTERED_OPERATIONS: MongooseQueryMiddleware[] = [
  'countDocuments',
  'distinct',
  'find',
  'findOne',
  'findOneAndDelete',
  'findOneAndReplace',
  'findOneAndUpdate',
  'replaceOne',
  'updateMany',
  'updateOne',
  'deleteMany',
  'deleteOne',
];

/**
 * Schema plugin of members and teams: documents whose `pendingImportId` is set belong to an import
 * that has not committed, and no query sees them unless it opts in with INCLUDE_PENDING_IMPORTS.
 * Why here rather than in each service: REST, GraphQL, loaders, authentication, tokens and targets
 * all read members and teams, and a read that forgot the condition would show (or let a caller
 * hang data on) something a failed import then removes. A query whose filter names
 * `pendingImportId` itself chose what it wants and is left as it is.
 */
export function hidePendingImports(schema: Schema): void {
  schema.add({ pendingImportId: { type: String } });
  schema.pre(
    FILTERED_OPERATIONS,
    { document: false, query: true },
    function hidePending(this: Query<unknown, unknown>) {
      if (this.getOptions().includePendingImports === true) return;
      if (Object.prototype.hasOwnProperty.call(this.getFilter(), 'pendingImportId')) return;
      this.where({ pendingImportId: null });
    },
  );
  schema.pre('aggregate', function hidePendingInPipeline(this: Aggregate<unknown>) {
    if ((this.options as { includePendingImports?: boolean }).includePendingImports === true)
      return;
    this.pipeline().unshift({ $match: { pendingImportId: null } });
  });
}
