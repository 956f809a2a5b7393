import type { GatewayConfig } from '../../config';
import { SalesforceRequestError } from './salesforce-errors';
import { type ApiUsage, SalesforceHttp, type SalesforceHttpOptions } from './salesforce-http';
import type { PicklistValues, QueryPage, SObjectDescribe } from './salesforce.types';

/** Reads Salesforce's REST API: SOQL queries page by page, an object's describe, a picklist's values. */
export interface SalesforceClient {
  /**
   * The pages of a SOQL query, each handed on as it arrives, through `query` (or `queryAll`,
   * which also answers deleted records with `IsDeleted = true`), following `nextRecordsUrl`.
   */
  query<T>(soql: string, options?: { all?: boolean }): AsyncGenerator<QueryPage<T>>;
  /**
   * The pages of a nested child relationship (a subquery's result), the one at hand first, then
   * those its `nextRecordsUrl` leads to.
   */
  rest<T>(page: QueryPage<T>, call: string): AsyncGenerator<QueryPage<T>>;
  /** `GET /sobjects/<name>/describe`: which fields the object has in this org. */
  describe(objectName: string): Promise<SObjectDescribe>;
  /** The values a record type allows for a picklist field (User Interface API). */
  picklistValues(objectName: string, recordTypeId: string, field: string): Promise<PicklistValues>;
  /** The org's API usage as Salesforce last reported it. */
  readonly usage: ApiUsage | null;
}

function isQueryPage(body: unknown): body is QueryPage<unknown> {
  const page = body as QueryPage<unknown> | null;
  return (
    typeof page === 'object' &&
    page !== null &&
    Array.isArray(page.records) &&
    typeof page.done === 'boolean'
  );
}

/**
 * The follow-up pages of a query (or of a nested child relationship) from `first` on, each read
 * as the consumer asks for it. A `nextRecordsUrl` must be a path of the instance's data API (a
 * full URL to somewhere else is refused), and one answered twice would loop for ever.
 */
export async function* pagesFrom<T>(
  http: SalesforceHttp,
  first: QueryPage<T>,
  call: string,
): AsyncGenerator<QueryPage<T>> {
  const seen = new Set<string>();
  let page = first;
  for (;;) {
    yield page;
    if (page.done) return;
    const next = page.nextRecordsUrl;
    if (typeof next !== 'string' || !next.startsWith(`${http.dataPath}/`))
      throw new SalesforceRequestError(
        null,
        call,
        `the answer is not done but its nextRecordsUrl is ${typeof next === 'string' ? 'not a path under ' + http.dataPath : 'missing'}`,
      );
    if (seen.has(next))
      throw new SalesforceRequestError(null, call, `nextRecordsUrl "${next}" came twice`);
    seen.add(next);
    const body = await http.get(next, call);
    if (!isQueryPage(body))
      throw new SalesforceRequestError(null, call, 'the answer has no "records" array and "done"');
    page = body as QueryPage<T>;
  }
}

/** The object a query reads (its outer FROM), to name the call in messages without the whole query. */
function queriedObject(soql: string): string {
  const outer = soql.replace(/\([^()]*\)/g, '');
  return /\bFROM\s+(\w+)/i.exec(outer)?.[1] ?? 'query';
}

export function createSalesforceClient(options: SalesforceHttpOptions): SalesforceClient {
  const http = new SalesforceHttp(options);
  return {
    get usage() {
      return http.usage;
    },
    async *query<T>(soql: string, { all = false } = {}) {
      const resource = all ? 'queryAll' : 'query';
      const call = `GET ${http.dataPath}/${resource} (${queriedObject(soql)})`;
      const body = await http.get(
        `${http.dataPath}/${resource}?${new URLSearchParams({ q: soql })}`,
        call,
      );
      if (!isQueryPage(body))
        throw new SalesforceRequestError(
          null,
          call,
          'the answer has no "records" array and "done"',
        );
      yield* pagesFrom(http, body as QueryPage<T>, call);
    },
    rest(page, call) {
      return pagesFrom(http, page, call);
    },
    async describe(objectName) {
      const path = `${http.dataPath}/sobjects/${encodeURIComponent(objectName)}/describe`;
      const body = (await http.get(path, `GET ${path}`)) as SObjectDescribe | null;
      if (typeof body !== 'object' || body === null || !Array.isArray(body.fields))
        throw new SalesforceRequestError(null, `GET ${path}`, 'the answer has no "fields" array');
      return body;
    },
    async picklistValues(objectName, recordTypeId, field) {
      const path = `${http.dataPath}/ui-api/object-info/${encodeURIComponent(objectName)}/picklist-values/${encodeURIComponent(recordTypeId)}/${encodeURIComponent(field)}`;
      const body = (await http.get(path, `GET ${path}`)) as PicklistValues | null;
      if (typeof body !== 'object' || body === null || !Array.isArray(body.values))
        throw new SalesforceRequestError(null, `GET ${path}`, 'the answer has no "values" array');
      return body;
    },
  };
}

/**
 * The client for the configured org, or null when SALESFORCE_CLIENT_ID or
 * SALESFORCE_CLIENT_SECRET is unset.
 */
export function salesforceClientFromConfig(
  config: Pick<
    GatewayConfig,
    | 'salesforceLoginUrl'
    | 'salesforceClientId'
    | 'salesforceClientSecret'
    | 'salesforceApiVersion'
    | 'salesforceApiLimitPercent'
  >,
  options: Partial<Omit<SalesforceHttpOptions, 'loginUrl' | 'clientId' | 'clientSecret'>> = {},
): SalesforceClient | null {
  if (config.salesforceClientId === undefined || config.salesforceClientSecret === undefined)
    return null;
  return createSalesforceClient({
    apiVersion: config.salesforceApiVersion,
    apiLimitPercent: config.salesforceApiLimitPercent,
    ...options,
    loginUrl: config.salesforceLoginUrl,
    clientId: config.salesforceClientId,
    clientSecret: config.salesforceClientSecret,
  });
}
