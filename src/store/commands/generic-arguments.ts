/**
 * Fields every command may carry (mongod's generic arguments: session, transaction, concerns, API
 * version, `$`-prefixed protocol fields): never options of the command itself.
 */
export function isGenericArgument(field: string): boolean {
  return field.startsWith('$') || GENERIC_ARGUMENTS.has(field);
}

const GENERIC_ARGUMENTS = new Set([
  'lsid',
  'txnNumber',
  'autocommit',
  'startTransaction',
  'comment',
  'maxTimeMS',
  'readConcern',
  'writeConcern',
  'apiVersion',
  'apiStrict',
  'apiDeprecationErrors',
]);
