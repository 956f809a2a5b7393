export { ErrorCode, HTTP_STATUS } from './error-code';
export { ErrorWithCode } from './error-with-code';
export type { FieldError, ErrorOptions } from './error-with-code';
export * from './errors';
