import { HubSpotAuthError, HubSpotError } from '../crm/hubspot/hubspot-errors';
import { BadGatewayError, ErrorWithCode } from '../errors';

/**
 * What a failed sync answers: HubSpot's refusals and failures as 502 naming HubSpot (its
 * authentication, for a refused token), the import's own errors (400, 409) as they are; anything
 * else is unexpected and stays as it is (500 at the edge).
 */
export function syncError(error: unknown): unknown {
  if (error instanceof HubSpotAuthError)
    return new BadGatewayError(`HubSpot authentication failed: ${error.message}`);
  if (error instanceof HubSpotError) return new BadGatewayError(error.message);
  return error;
}

/** The message a failed sync is recorded with. */
export function failureMessage(error: unknown): string {
  if (error instanceof ErrorWithCode) return error.message;
  return `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
}

/** Thrown into the import when the lease was lost: the import then discards what it wrote. */
export class SyncLeaseLostError extends Error {
  constructor() {
    super(
      'the sync lost its lease (its process stalled past SYNC_LEASE_SECONDS and another sync took over); nothing was kept',
    );
    this.name = 'SyncLeaseLostError';
  }
}
