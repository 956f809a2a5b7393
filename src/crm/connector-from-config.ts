import type { GatewayConfig } from '../config';
import type { CrmConnector } from './connector';
import { hubSpotClientFromConfig, type HubSpotClientOptions } from './hubspot/hubspot-client';
import { hubSpotConnector } from './hubspot/hubspot-connector';
import { salesforceClientFromConfig } from './salesforce/salesforce-client';
import { salesforceConnector } from './salesforce/salesforce-connector';
import type { SalesforceHttpOptions } from './salesforce/salesforce-http';

/** Client settings beyond the configuration (tests shorten the backoff and the page size). */
export interface CrmClientOptions {
  hubspot?: Omit<HubSpotClientOptions, 'baseUrl' | 'token'>;
  salesforce?: Partial<Omit<SalesforceHttpOptions, 'loginUrl' | 'clientId' | 'clientSecret'>>;
}

/** The settings a connector is made from. */
export type CrmConfig = Pick<
  GatewayConfig,
  | 'crmProvider'
  | 'hubspotToken'
  | 'hubspotBaseUrl'
  | 'salesforceLoginUrl'
  | 'salesforceClientId'
  | 'salesforceClientSecret'
  | 'salesforceApiVersion'
  | 'salesforceApiLimitPercent'
>;

/** The connector of CRM_PROVIDER, or null when its credentials are not set. */
export function connectorFromConfig(
  config: CrmConfig,
  options: CrmClientOptions = {},
): CrmConnector | null {
  if (config.crmProvider === 'salesforce') {
    const client = salesforceClientFromConfig(config, options.salesforce);
    return client === null ? null : salesforceConnector(client);
  }
  const client = hubSpotClientFromConfig(config, options.hubspot);
  return client === null ? null : hubSpotConnector(client);
}

/** What to set to configure the sync of a CRM, for the 409 of a sync not configured. */
export function howToConfigure(config: Pick<GatewayConfig, 'crmProvider'>): string {
  return config.crmProvider === 'salesforce'
    ? "set SALESFORCE_CLIENT_ID and SALESFORCE_CLIENT_SECRET to the consumer key and secret of a connected app with the client-credentials flow, and SALESFORCE_LOGIN_URL to the org's My Domain URL"
    : 'set HUBSPOT_TOKEN to a HubSpot access token';
}
