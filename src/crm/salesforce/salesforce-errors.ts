import { CrmError } from '../connector';
import { redactedText } from '../http/redact';

/** Anything that stopped a Salesforce call; the message names the call and never holds a credential. */
export class SalesforceError extends CrmError {}

/**
 * Salesforce refused the connected app's credentials or the access token (the token endpoint's
 * `invalid_client` / `invalid_grant`, or `401` with a token fetched again once), or the
 * integration user lacks a permission (`403` other than a request limit). Not retried: asking
 * again with the same credentials cannot succeed.
 */
export class SalesforceAuthError extends SalesforceError {
  constructor(
    readonly status: number,
    readonly call: string,
    detail: string,
  ) {
    super(
      `Salesforce refused ${status === 403 ? 'access' : 'the credentials'} (${status}${detail ? `: ${detail}` : ''}) on ${call}; ` +
        'check SALESFORCE_CLIENT_ID, SALESFORCE_CLIENT_SECRET, SALESFORCE_LOGIN_URL and the permissions of the integration user (docs/crm-sync.md)',
    );
  }
}

/** Salesforce answered with an error that asking again will not change, or with a body that is not what the resource returns. */
export class SalesforceRequestError extends SalesforceError {
  constructor(
    readonly status: number | null,
    readonly call: string,
    detail: string,
  ) {
    super(`Salesforce rejected ${call}${status === null ? '' : ` (${status})`}: ${detail}`);
  }
}

/** The call kept failing (`REQUEST_LIMIT_EXCEEDED`, `5xx`, timeout, network) until the attempts ran out. */
export class SalesforceUnavailableError extends SalesforceError {
  constructor(
    readonly call: string,
    readonly attempts: number,
    readonly lastFailure: string,
  ) {
    super(
      `Salesforce did not answer ${call} after ${attempts} attempt${attempts === 1 ? '' : 's'}; last: ${lastFailure}`,
    );
  }
}

/**
 * The org's API requests of the last 24 hours reached the share of its daily allowance the sync
 * may use (SALESFORCE_API_LIMIT_PERCENT), or the allowance itself: the sync stops before asking more.
 */
export class SalesforceLimitError extends SalesforceError {}

/** One error of Salesforce's error body: `[{ "message", "errorCode", "fields"? }]`. */
export interface SalesforceErrorItem {
  message?: unknown;
  errorCode?: unknown;
}

/** The errors of an answer's body: Salesforce's array, or the token endpoint's `{ error, error_description }`. */
export function errorItemsOf(body: unknown): { code: string; message: string }[] {
  const items = Array.isArray(body) ? (body as SalesforceErrorItem[]) : [];
  if (items.length === 0 && typeof body === 'object' && body !== null) {
    const oauth = body as { error?: unknown; error_description?: unknown };
    if (typeof oauth.error === 'string')
      return [
        {
          code: oauth.error,
          message: typeof oauth.error_description === 'string' ? oauth.error_description : '',
        },
      ];
  }
  return items
    .filter((item) => typeof item === 'object' && item !== null)
    .map((item) => ({
      code: typeof item.errorCode === 'string' ? item.errorCode : '',
      message: typeof item.message === 'string' ? item.message : '',
    }));
}

/** What the errors say, in one line: each `CODE: message`, credentials cut out before the line is shortened. */
export function describeErrors(
  items: { code: string; message: string }[],
  secrets: readonly string[],
): string {
  const text = items
    .map((item) => [item.code, item.message].filter((part) => part !== '').join(': '))
    .filter((part) => part !== '')
    .join('; ');
  return redactedText(text, secrets);
}
