/** The records the connector reads, as Salesforce's REST API answers them (JSON). */

/** Every record carries `attributes` (its type and URL). */
export interface SalesforceRecord {
  attributes?: { type?: string; url?: string };
}

/** A page of a query: `GET /services/data/<v>/query?q=...` and its `nextRecordsUrl` pages. */
export interface QueryPage<T> {
  totalSize: number;
  done: boolean;
  nextRecordsUrl?: string;
  records: T[];
}

/** A row of `OpportunityStage`: one value of the StageName picklist with its meaning. */
export interface OpportunityStageRecord extends SalesforceRecord {
  ApiName: string;
  MasterLabel: string | null;
  SortOrder: number | null;
  IsActive: boolean;
  IsClosed: boolean;
  IsWon: boolean;
  DefaultProbability: number | null;
}

export interface RecordTypeRecord extends SalesforceRecord {
  Id: string;
  Name: string | null;
  BusinessProcessId: string | null;
  IsActive: boolean;
}

export interface BusinessProcessRecord extends SalesforceRecord {
  Id: string;
  Name: string | null;
  IsActive: boolean;
}

export interface UserRecord extends SalesforceRecord {
  Id: string;
  Email: string | null;
  FirstName: string | null;
  LastName: string | null;
  IsActive: boolean;
  UserRoleId: string | null;
  UserRole: { Name: string | null } | null;
}

export interface OpportunityHistoryRecord extends SalesforceRecord {
  StageName: string | null;
  CreatedDate: string;
}

export interface OpportunityRecord extends SalesforceRecord {
  Id: string;
  Name: string | null;
  Amount: number | null;
  StageName: string | null;
  CloseDate: string | null;
  CreatedDate: string | null;
  OwnerId: string | null;
  IsClosed: boolean;
  IsWon: boolean;
  IsDeleted: boolean;
  ForecastCategoryName: string | null;
  SystemModstamp: string;
  /** Multi-currency orgs only. */
  CurrencyIsoCode?: string | null;
  /** Orgs with Opportunity record types only. */
  RecordTypeId?: string | null;
  /** The opportunity's stage changes (and other history), oldest first; null when it has none. */
  OpportunityHistories: QueryPage<OpportunityHistoryRecord> | null;
}

export interface CurrencyTypeRecord extends SalesforceRecord {
  IsoCode: string;
  ConversionRate: number;
  IsCorporate: boolean;
}

/** What the connector reads of `GET /services/data/<v>/sobjects/Opportunity/describe`. */
export interface SObjectDescribe {
  name: string;
  fields: { name: string }[];
}

/** `GET /services/data/<v>/ui-api/object-info/Opportunity/picklist-values/<recordTypeId>/StageName`. */
export interface PicklistValues {
  values: { value: string; label?: string }[];
}
