import type {
  HubSpotDeal,
  HubSpotOwner,
  HubSpotPipeline,
  HubSpotStage,
} from '../../import/hubspot.types';
import type { CrmConnector, CrmDealPage } from '../connector';
import type { SalesforceClient } from './salesforce-client';
import { soqlDateTime } from './soql';
import type {
  BusinessProcessRecord,
  CurrencyTypeRecord,
  OpportunityHistoryRecord,
  OpportunityRecord,
  OpportunityStageRecord,
  RecordTypeRecord,
  UserRecord,
} from './salesforce.types';

/** The pipeline of an org without Opportunity record types, and of opportunities with none. */
export const DEFAULT_PIPELINE = 'default';

/** Every record of a small query (stages, record types, currencies, users), all pages joined. */
async function all<T>(client: SalesforceClient, soql: string): Promise<T[]> {
  const records: T[] = [];
  for await (const page of client.query<T>(soql)) records.push(...page.records);
  return records;
}

/** What the deals are read and mapped with, known before the first of them. */
interface OrgShape {
  pipelines: HubSpotPipeline[];
  /** Record type id → the pipeline (business process) of its opportunities. */
  pipelineOfRecordType: Map<string, string>;
  recordTypes: boolean;
  multiCurrency: boolean;
  /** The corporate currency: what amounts in another one are converted into. */
  corporate: string | null;
  /** ISO code → units of it per unit of the corporate currency (`CurrencyType.ConversionRate`). */
  rates: Map<string, number>;
}

/**
 * A stage as the import reads it. Closed stages are told apart by `IsWon`: probability 1 when
 * won, 0 when lost (Salesforce's own defaults for its closed stages), so that a won deal is one
 * in an `IsWon` stage whatever probability an admin gave the stage; open stages keep
 * `DefaultProbability` / 100.
 */
function stageOf(record: OpportunityStageRecord, index: number): HubSpotStage {
  const probability = record.IsClosed
    ? record.IsWon
      ? 1
      : 0
    : Math.min(1, Math.max(0, (record.DefaultProbability ?? 0) / 100));
  return {
    id: record.ApiName,
    label: record.MasterLabel ?? record.ApiName,
    displayOrder: record.SortOrder ?? index,
    archived: !record.IsActive,
    metadata: { isClosed: String(record.IsClosed), probability: String(probability) },
  };
}

/**
 * The pipelines: one per sales process (the BusinessProcess of the Opportunity record types),
 * with the stages its record types allow; `default` with every stage where opportunities have no
 * record type (an org without record types has only that one).
 */
async function readOrg(client: SalesforceClient): Promise<OrgShape> {
  const describe = await client.describe('Opportunity');
  const fields = new Set(describe.fields.map((field) => field.name));
  const recordTypes = fields.has('RecordTypeId');
  const multiCurrency = fields.has('CurrencyIsoCode');
  const stageRecords = await all<OpportunityStageRecord>(
    client,
    'SELECT ApiName, MasterLabel, SortOrder, IsActive, IsClosed, IsWon, DefaultProbability FROM OpportunityStage ORDER BY SortOrder',
  );
  const stages = stageRecords.map(stageOf);
  const pipelines: HubSpotPipeline[] = [];
  const pipelineOfRecordType = new Map<string, string>();
  let needsDefault = !recordTypes;
  if (recordTypes) {
    const types = await all<RecordTypeRecord>(
      client,
      "SELECT Id, Name, BusinessProcessId, IsActive FROM RecordType WHERE SobjectType = 'Opportunity' ORDER BY Name",
    );
    const processes = await all<BusinessProcessRecord>(
      client,
      "SELECT Id, Name, IsActive FROM BusinessProcess WHERE TableEnumOrId = 'Opportunity' ORDER BY Name",
    );
    for (const type of types)
      if (type.BusinessProcessId !== null)
        pipelineOfRecordType.set(type.Id, type.BusinessProcessId);
    for (const process of processes) {
      // A process's stages are those its record types allow; the active record type decides first.
      const ofProcess = types.filter((type) => type.BusinessProcessId === process.Id);
      const type = ofProcess.find((t) => t.IsActive) ?? ofProcess[0];
      if (type === undefined) continue;
      const allowed = new Set(
        (await client.picklistValues('Opportunity', type.Id, 'StageName')).values.map(
          (value) => value.value,
        ),
      );
      pipelines.push({
        id: process.Id,
        label: process.Name ?? process.Id,
        displayOrder: pipelines.length,
        stages: stages.filter((stage) => allowed.has(stage.id)),
      });
    }
    const withoutType = await client.query<unknown>(
      'SELECT COUNT() FROM Opportunity WHERE RecordTypeId = null',
    );
    for await (const page of withoutType) needsDefault = needsDefault || page.totalSize > 0;
  }
  if (needsDefault)
    pipelines.push({
      id: DEFAULT_PIPELINE,
      label: 'Opportunities',
      displayOrder: pipelines.length,
      stages,
    });
  let corporate: string | null = null;
  const rates = new Map<string, number>();
  if (multiCurrency) {
    for (const currency of await all<CurrencyTypeRecord>(
      client,
      'SELECT IsoCode, ConversionRate, IsCorporate FROM CurrencyType WHERE IsActive = true',
    )) {
      rates.set(currency.IsoCode, currency.ConversionRate);
      if (currency.IsCorporate) corporate = currency.IsoCode;
    }
  } else {
    const [organization] = await all<{ DefaultCurrencyIsoCode: string | null }>(
      client,
      'SELECT DefaultCurrencyIsoCode FROM Organization',
    );
    corporate = organization?.DefaultCurrencyIsoCode ?? null;
  }
  return { pipelines, pipelineOfRecordType, recordTypes, multiCurrency, corporate, rates };
}

/**
 * The users owning opportunities, as owners: active ones become members (matched by e-mail),
 * inactive ones are archived; a user's role is their team.
 */
async function readOwners(client: SalesforceClient): Promise<HubSpotOwner[]> {
  const users = await all<UserRecord>(
    client,
    'SELECT Id, Email, FirstName, LastName, IsActive, UserRoleId, UserRole.Name FROM User WHERE Id IN (SELECT OwnerId FROM Opportunity) ORDER BY Id',
  );
  return users.map((user) => ({
    id: user.Id,
    email: user.Email,
    firstName: user.FirstName,
    lastName: user.LastName,
    userId: user.Id,
    archived: !user.IsActive,
    teams:
      user.UserRoleId === null
        ? []
        : [{ id: user.UserRoleId, name: user.UserRole?.Name ?? user.UserRoleId, primary: true }],
  }));
}

/** An instant as the import's ISO form (Salesforce writes `2026-11-23T09:50:00.000+0000`). */
function iso(value: string | null): string | null {
  if (value === null) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : new Date(ms).toISOString();
}

/** A stage entry: the stage and when the opportunity entered it. */
interface StageEntry {
  stageId: string;
  at: string;
}

/**
 * The stages an opportunity entered, oldest first, from its OpportunityHistory rows (one per
 * change of stage, amount, probability or close date): a row starts a stay when its stage
 * differs from the row before.
 */
async function stageEntries(
  client: SalesforceClient,
  record: OpportunityRecord,
): Promise<StageEntry[]> {
  const entries: StageEntry[] = [];
  const first = record.OpportunityHistories;
  if (first === null || first === undefined) return entries;
  let previous: string | null = null;
  for await (const page of client.rest<OpportunityHistoryRecord>(
    first,
    `OpportunityHistory of opportunity ${record.Id}`,
  )) {
    for (const row of page.records) {
      if (row.StageName === null || row.StageName === previous) continue;
      previous = row.StageName;
      entries.push({ stageId: row.StageName, at: iso(row.CreatedDate) ?? row.CreatedDate });
    }
  }
  return entries;
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

/**
 * An opportunity as a deal of the import: its fields under the import's property names, won or
 * lost from IsWon and IsClosed, the forecast category, the currency (the corporate one in a
 * single-currency org) with the amount converted into the corporate currency, and the stage
 * history twice: each stage's latest entry as `hs_date_entered_<stage>` and
 * `hs_v2_date_entered_<stage>`, and every entry in `propertiesWithHistory.dealstage`, newest
 * first as HubSpot lists it. A deleted opportunity is `archived: true`.
 */
async function dealOf(
  client: SalesforceClient,
  record: OpportunityRecord,
  org: OrgShape,
): Promise<HubSpotDeal> {
  const modified = iso(record.SystemModstamp);
  const currency = org.multiCurrency ? (record.CurrencyIsoCode ?? null) : org.corporate;
  const rate = currency === null ? undefined : org.rates.get(currency);
  const inCorporate =
    record.Amount === null || currency === null || currency === org.corporate
      ? record.Amount
      : rate === undefined || rate <= 0
        ? null
        : round2(record.Amount / rate);
  const pipeline = !org.recordTypes
    ? DEFAULT_PIPELINE
    : record.RecordTypeId === null || record.RecordTypeId === undefined
      ? DEFAULT_PIPELINE
      : (org.pipelineOfRecordType.get(record.RecordTypeId) ?? null);
  const entries = await stageEntries(client, record);
  const properties: Record<string, string | null> = {
    dealname: record.Name,
    amount: record.Amount === null ? null : String(record.Amount),
    dealstage: record.StageName,
    pipeline,
    closedate: record.CloseDate,
    createdate: iso(record.CreatedDate),
    hubspot_owner_id: record.OwnerId,
    deal_currency_code: currency,
    amount_in_home_currency: inCorporate === null ? null : String(inCorporate),
    hs_lastmodifieddate: modified,
    hs_is_closed: String(record.IsClosed),
    hs_is_closed_won: String(record.IsClosed && record.IsWon),
    hs_is_closed_lost: String(record.IsClosed && !record.IsWon),
    hs_manual_forecast_category: record.ForecastCategoryName,
  };
  for (const entry of entries) {
    properties[`hs_date_entered_${entry.stageId}`] = entry.at;
    properties[`hs_v2_date_entered_${entry.stageId}`] = entry.at;
  }
  return {
    id: record.Id,
    properties,
    propertiesWithHistory: {
      dealstage: entries
        .slice()
        .reverse()
        .map((entry) => ({ value: entry.stageId, timestamp: entry.at })),
    },
    createdAt: iso(record.CreatedDate),
    updatedAt: modified,
    archived: record.IsDeleted,
  };
}

/** The Opportunity fields a deal is made of, with the org's optional ones. */
function opportunityQuery(org: OrgShape, since: Date | null): string {
  const fields = [
    'Id',
    'Name',
    'Amount',
    'StageName',
    'CloseDate',
    'CreatedDate',
    'OwnerId',
    'IsClosed',
    'IsWon',
    'IsDeleted',
    'ForecastCategoryName',
    'SystemModstamp',
    ...(org.multiCurrency ? ['CurrencyIsoCode'] : []),
    ...(org.recordTypes ? ['RecordTypeId'] : []),
    '(SELECT StageName, CreatedDate FROM OpportunityHistories ORDER BY CreatedDate)',
  ];
  const where = since === null ? '' : ` WHERE SystemModstamp >= ${soqlDateTime(since)}`;
  return `SELECT ${fields.join(', ')} FROM Opportunity${where} ORDER BY SystemModstamp, Id`;
}

/**
 * Salesforce (REST API, SOQL) as a connector. Full: every opportunity through `query`.
 * Incremental: those whose `SystemModstamp` is at or after `since` through `queryAll`, so that
 * deleted ones come back with `IsDeleted = true` and leave. Each opportunity comes with its
 * OpportunityHistory (a child subquery), so the stage history costs no request of its own.
 */
export function salesforceConnector(client: SalesforceClient): CrmConnector {
  return {
    provider: 'salesforce',
    name: 'Salesforce',
    budget() {
      const usage = client.usage;
      return {
        rolling: null,
        daily:
          usage === null
            ? null
            : { remaining: Math.max(0, usage.max - usage.used), max: usage.max },
      };
    },
    async read(since, { onStep, signal } = {}) {
      const org = await readOrg(client);
      onStep?.('pipelines', org.pipelines.length);
      signal?.throwIfAborted();
      const owners = await readOwners(client);
      onStep?.('owners', owners.length);
      async function* deals(): AsyncGenerator<CrmDealPage> {
        const pages = client.query<OpportunityRecord>(opportunityQuery(org, since), {
          all: since !== null,
        });
        for await (const page of pages) {
          signal?.throwIfAborted();
          const results: HubSpotDeal[] = [];
          let latest: number | null = null;
          for (const record of page.records) {
            results.push(await dealOf(client, record, org));
            const at = Date.parse(record.SystemModstamp);
            if (!Number.isNaN(at) && (latest === null || at > latest)) latest = at;
          }
          yield { results, latestModifiedAt: latest };
        }
      }
      return {
        pipelines: { results: org.pipelines },
        owners: { results: owners },
        homeCurrency: org.corporate,
        deals: deals(),
      };
    },
  };
}
