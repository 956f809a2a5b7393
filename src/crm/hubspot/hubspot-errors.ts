import { CrmError } from '../connector';
import { redactedText } from '../http/redact';

/** Anything that stopped a HubSpot call; the message names the call and never holds the token. */
export class HubSpotError extends CrmError {}

/**
 * HubSpot refused the token (`401`, or `403` for a scope the private app lacks). Never retried:
 * asking again with the same token cannot succeed.
 */
export class HubSpotAuthError extends HubSpotError {
  constructor(
    readonly status: number,
    readonly call: string,
    detail: string,
  ) {
    super(
      `HubSpot refused the token (${status}${detail ? `: ${detail}` : ''}) on ${call}; ` +
        'check HUBSPOT_TOKEN and that its private app has the scopes listed in docs/crm-sync.md',
    );
  }
}

/** HubSpot answered with an error that asking again will not change (a `4xx` other than `401`/`403`/`429`, or a body that is not what the endpoint returns). */
export class HubSpotRequestError extends HubSpotError {
  constructor(
    readonly status: number | null,
    readonly call: string,
    detail: string,
  ) {
    super(`HubSpot rejected ${call}${status === null ? '' : ` (${status})`}: ${detail}`);
  }
}

/** The call kept failing (`429`, `5xx`, timeout, network) until the attempts ran out, or hit the daily limit. */
export class HubSpotUnavailableError extends HubSpotError {
  constructor(
    readonly call: string,
    readonly attempts: number,
    readonly lastFailure: string,
  ) {
    super(
      `HubSpot did not answer ${call} after ${attempts} attempt${attempts === 1 ? '' : 's'}; last: ${lastFailure}`,
    );
  }
}

/** HubSpot's error body: `{ status: "error", message, category, correlationId, policyName? }`. */
export interface HubSpotErrorBody {
  message?: string;
  category?: string;
  policyName?: string;
  correlationId?: string;
}

/**
 * What an error body says, in one line, with the token cut out should HubSpot ever echo it: cut
 * out before the line is shortened, so that no beginning of the token is left standing.
 */
export function describeErrorBody(body: HubSpotErrorBody | null, token: string): string {
  if (body === null) return '';
  const parts = [body.category, body.message].filter(
    (part): part is string => typeof part === 'string' && part !== '',
  );
  return redactedText(parts.join(' '), [token]);
}
