import { CrmError } from '../crm/connector';
import { HubSpotAuthError } from '../crm/hubspot/hubspot-errors';
import { SalesforceAuthError } from '../crm/salesforce/salesforce-errors';
import { ErrorWithCode } from '../errors';

/**
 * The message a failed sync is recorded with: the CRM's refusal or failure (authentication named
 * first when the credentials were refused), the import's own refusal (the guard, a document it
 * could not take), the sync being stopped; anything else as unexpected. Credentials never appear:
 * the CRM clients cut them out of every message they make.
 */
export function failureMessage(error: unknown): string {
  if (error instanceof HubSpotAuthError) return `HubSpot authentication failed: ${error.message}`;
  if (error instanceof SalesforceAuthError)
    return `Salesforce authentication failed: ${error.message}`;
  if (error instanceof CrmError || error instanceof ErrorWithCode) return error.message;
  if (error instanceof SyncStoppedError || error instanceof SyncLeaseLostError)
    return error.message;
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

/** The sync was stopped (its gateway shut down, or the CLI was interrupted) before it committed. */
export class SyncStoppedError extends Error {
  constructor() {
    super('stopped: the process running the sync shut down before it committed; nothing was kept');
    this.name = 'SyncStoppedError';
  }
}
