// Internal test helper: Salesforce orgs for the sync tests (test/helpers/salesforce-server.ts
// serves them), the changes later syncs must pick up, and the metrics computed from the org's
// records alone, by the contract's rules.
import type { SalesforceOrg, StoredOpportunity, StoredStage } from '../helpers/salesforce-server';

export const CLIENT_ID = '3MVG9sync.test.consumer.key';
export const CLIENT_SECRET = 'sf-secret-5F2C9A7D41B0E6';

const DAY = 86_400_000;
const MINUTE = 60_000;

export const STAGES: StoredStage[] = [
  stage('Prospecting', 1, false, false, 10, 'Pipeline'),
  stage('Qualification', 2, false, false, 20, 'Pipeline'),
  stage('Proposal/Price Quote', 3, false, false, 75, 'Best Case'),
  stage('Negotiation/Review', 4, false, false, 90, 'Commit'),
  stage('Closed Won', 5, true, true, 100, 'Closed'),
  stage('Closed Lost', 6, true, false, 0, 'Omitted'),
];

function stage(
  name: string,
  order: number,
  closed: boolean,
  won: boolean,
  probability: number,
  forecast: string,
): StoredStage {
  return {
    ApiName: name,
    MasterLabel: name,
    SortOrder: order,
    IsActive: true,
    IsClosed: closed,
    IsWon: won,
    DefaultProbability: probability,
    ForecastCategoryName: forecast,
  };
}

/** Sales processes: new business goes through every open stage, renewals straight to negotiation. */
export const NEW_BUSINESS = '01J000000000NB1';
export const RENEWAL = '01J000000000RN1';
const PROCESS_STAGES: Record<string, string[]> = {
  [NEW_BUSINESS]: [
    'Prospecting',
    'Qualification',
    'Proposal/Price Quote',
    'Negotiation/Review',
    'Closed Won',
    'Closed Lost',
  ],
  [RENEWAL]: ['Negotiation/Review', 'Closed Won', 'Closed Lost'],
};
const RECORD_TYPE = { [NEW_BUSINESS]: '012000000000NBT', [RENEWAL]: '012000000000RNT' };

/** A Salesforce id of the key prefix's kind, 15 characters. */
function sfId(prefix: string, n: number): string {
  return `${prefix}${String(n).padStart(12, '0')}`;
}

export const USERS = [
  {
    Id: sfId('005', 1),
    Email: 'ada.sales@example.com',
    FirstName: 'Ada',
    LastName: 'Sales',
    IsActive: true,
    UserRoleId: sfId('00E', 1),
  },
  {
    Id: sfId('005', 2),
    Email: 'bo.sales@example.com',
    FirstName: 'Bo',
    LastName: 'Sales',
    IsActive: true,
    UserRoleId: sfId('00E', 1),
  },
  {
    Id: sfId('005', 3),
    Email: 'cy.sales@example.com',
    FirstName: 'Cy',
    LastName: 'Sales',
    IsActive: true,
    UserRoleId: sfId('00E', 2),
  },
  // Owns deals, has left the company: no member, its deals keep none.
  {
    Id: sfId('005', 4),
    Email: 'gone@example.com',
    FirstName: 'Gone',
    LastName: 'User',
    IsActive: false,
    UserRoleId: null,
  },
];

export interface OrgOptions {
  /** Opportunity record types with their sales processes (else one `default` pipeline). */
  recordTypes?: boolean;
  /** Multi-currency with EUR corporate and some deals in USD (else all in EUR). */
  multiCurrency?: boolean;
}

/** The stages an opportunity went through to reach `target` in its process, in order. */
function pathTo(process: string, target: string): string[] {
  const open = PROCESS_STAGES[process]!.filter((s) => !s.startsWith('Closed'));
  if (!target.startsWith('Closed')) return open.slice(0, open.indexOf(target) + 1);
  return [...open.slice(0, 2), target];
}

/**
 * `count` opportunities, spread over the processes, stages, owners and currencies; opportunity i
 * last modified at `modifiedFrom` + i minutes (whole seconds, as Salesforce stamps them), with
 * an OpportunityHistory row for each stage it went through, a day apart.
 */
export function salesforceOpportunities(
  count: number,
  now: number,
  options: OrgOptions = {},
  modifiedFrom = now - 2 * DAY,
): StoredOpportunity[] {
  return Array.from({ length: count }, (_, i) => {
    const process = options.recordTypes && i % 4 === 3 ? RENEWAL : NEW_BUSINESS;
    const stages = PROCESS_STAGES[process]!;
    const stageName = stages[i % stages.length]!;
    const created = now - 40 * DAY + i * MINUTE;
    const opportunity: StoredOpportunity = {
      Id: sfId('006', i + 1),
      Name: `Opportunity ${i + 1}`,
      Amount: 1000 + 53 * i,
      StageName: stageName,
      CloseDate: null,
      CreatedDate: new Date(created).toISOString(),
      OwnerId: USERS[i % USERS.length]!.Id,
      ForecastCategoryName: null,
      SystemModstamp: new Date(Math.floor((modifiedFrom + i * MINUTE) / 1000) * 1000).toISOString(),
      ...(options.multiCurrency ? { CurrencyIsoCode: i % 5 === 4 ? 'USD' : 'EUR' } : {}),
      ...(options.recordTypes ? { RecordTypeId: RECORD_TYPE[process] } : {}),
      history: [],
    };
    moveTo(opportunity, stageName, now, opportunity.SystemModstamp, process, created);
    return opportunity;
  });
}

/**
 * Moves an opportunity to `stageName` (closing it an hour before `now` if the stage is closed, else
 * a month ahead), modified at `modified`, with its OpportunityHistory extended (or, when `created`
 * is given, written from its creation on).
 */
export function moveTo(
  opportunity: StoredOpportunity,
  stageName: string,
  now: number,
  modified: string,
  process = NEW_BUSINESS,
  created?: number,
): void {
  const stageInfo = STAGES.find((s) => s.ApiName === stageName)!;
  opportunity.StageName = stageName;
  opportunity.ForecastCategoryName = stageInfo.ForecastCategoryName;
  opportunity.CloseDate = new Date(stageInfo.IsClosed ? now - 60 * MINUTE : now + 30 * DAY)
    .toISOString()
    .slice(0, 10);
  opportunity.SystemModstamp = modified;
  if (created !== undefined) {
    opportunity.history = pathTo(process, stageName).map((name, k) => ({
      StageName: name,
      CreatedDate: new Date(created + k * DAY).toISOString(),
      Amount: opportunity.Amount,
    }));
  } else {
    opportunity.history.push({
      StageName: stageName,
      CreatedDate: modified,
      Amount: opportunity.Amount,
    });
  }
}

export function salesforceOrg(
  opportunities: StoredOpportunity[],
  options: OrgOptions = {},
): SalesforceOrg {
  return {
    corporateCurrency: 'EUR',
    ...(options.multiCurrency
      ? {
          currencies: [
            { IsoCode: 'EUR', ConversionRate: 1, IsCorporate: true, IsActive: true },
            { IsoCode: 'USD', ConversionRate: 1.25, IsCorporate: false, IsActive: true },
          ],
        }
      : {}),
    stages: STAGES,
    ...(options.recordTypes
      ? {
          recordTypes: [
            {
              Id: RECORD_TYPE[NEW_BUSINESS],
              Name: 'New Business',
              BusinessProcessId: NEW_BUSINESS,
              IsActive: true,
            },
            {
              Id: RECORD_TYPE[RENEWAL],
              Name: 'Renewal',
              BusinessProcessId: RENEWAL,
              IsActive: true,
            },
          ],
          businessProcesses: [
            {
              Id: NEW_BUSINESS,
              Name: 'New Business Process',
              IsActive: true,
              stages: PROCESS_STAGES[NEW_BUSINESS]!,
            },
            {
              Id: RENEWAL,
              Name: 'Renewal Process',
              IsActive: true,
              stages: PROCESS_STAGES[RENEWAL]!,
            },
          ],
        }
      : {}),
    roles: [
      { Id: sfId('00E', 1), Name: 'EMEA Sales' },
      { Id: sfId('00E', 2), Name: 'Americas Sales' },
    ],
    users: USERS,
    opportunities,
  };
}

/** The pipeline an opportunity is in, as the connector maps it. */
export function pipelineOf(org: SalesforceOrg, opportunity: StoredOpportunity): string {
  if (org.recordTypes === undefined || !opportunity.RecordTypeId) return 'default';
  return org.recordTypes.find((r) => r.Id === opportunity.RecordTypeId)!.BusinessProcessId;
}

/**
 * The metrics of a pipeline definition computed from the org's records (not by the gateway):
 * amounts in EUR (USD ones divided by the USD rate), won = in an IsWon stage, lost = closed and
 * not won, weighted by DefaultProbability / 100.
 */
export function expectedSalesforceMetrics(
  org: SalesforceOrg,
  pipelineId: string,
): Record<string, number | null> {
  let open = 0;
  let openAmount = 0;
  let weighted = 0;
  let won = 0;
  let wonAmount = 0;
  let lost = 0;
  for (const o of org.opportunities) {
    if (o.IsDeleted || pipelineOf(org, o) !== pipelineId) continue;
    const s = STAGES.find((x) => x.ApiName === o.StageName)!;
    const rate = org.currencies?.find((c) => c.IsoCode === o.CurrencyIsoCode)?.ConversionRate ?? 1;
    const amount = Math.round(((o.Amount ?? 0) / rate) * 100) / 100;
    if (!s.IsClosed) {
      open += 1;
      openAmount += amount;
      weighted += (amount * s.DefaultProbability) / 100;
    } else if (s.IsWon) {
      won += 1;
      wonAmount += amount;
    } else lost += 1;
  }
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    pipeline_value: round(openAmount),
    weighted_pipeline_value: round(weighted),
    open_opportunities: open,
    win_rate: won + lost === 0 ? null : round((won / (won + lost)) * 100),
    average_deal_size: won === 0 ? null : round(wonAmount / won),
  };
}
