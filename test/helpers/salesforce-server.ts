// Internal test helper: a Salesforce-compatible REST API server on loopback, holding an org the
// test gives it. Written from Salesforce's REST API reference, it behaves as Salesforce does where
// the connector depends on it: the OAuth 2.0 client-credentials token endpoint (`instance_url` is
// this server), Bearer tokens that can expire (401 `INVALID_SESSION_ID`), SOQL through `query`
// and `queryAll` (parsed by soql-parser-js: field lists with parent relationships, child
// subqueries, COUNT(), WHERE with AND/OR, IN lists and semi-joins, ORDER BY, LIMIT; unknown
// objects and fields answered as Salesforce does), pages of at most `batchSize` records with
// `nextRecordsUrl` query locators (child subqueries paged too), deleted records only through
// queryAll, an object's describe, picklist values per record type (User Interface API), the
// `Sforce-Limit-Info` header counting API requests against a daily allowance (403
// `REQUEST_LIMIT_EXCEEDED` past it), errors as `[{ "message", "errorCode" }]`, and faults on demand.
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  parseQuery,
  type Condition,
  type Query,
  type WhereClause,
} from '@jetstreamapp/soql-parser-js';

/** One value of the StageName picklist with its meaning (`OpportunityStage`). */
export interface StoredStage {
  ApiName: string;
  MasterLabel: string;
  SortOrder: number;
  IsActive: boolean;
  IsClosed: boolean;
  IsWon: boolean;
  DefaultProbability: number;
  ForecastCategoryName: string;
}

/** A row of OpportunityHistory: written on each change of stage, amount, probability or close date. */
export interface StoredHistory {
  StageName: string;
  CreatedDate: string;
  Amount?: number | null;
}

export interface StoredOpportunity {
  Id: string;
  Name: string;
  Amount: number | null;
  StageName: string;
  CloseDate: string | null;
  CreatedDate: string;
  OwnerId: string;
  ForecastCategoryName: string | null;
  SystemModstamp: string;
  IsDeleted?: boolean;
  /** Multi-currency orgs only. */
  CurrencyIsoCode?: string;
  /** Orgs with record types only; null: the master record type. */
  RecordTypeId?: string | null;
  history: StoredHistory[];
}

export interface StoredUser {
  Id: string;
  Email: string | null;
  FirstName: string | null;
  LastName: string | null;
  IsActive: boolean;
  UserRoleId: string | null;
}

export interface SalesforceOrg {
  /** `Organization.DefaultCurrencyIsoCode`: the corporate currency. */
  corporateCurrency: string;
  /** Present: a multi-currency org (Opportunity has CurrencyIsoCode; CurrencyType answers these). */
  currencies?: {
    IsoCode: string;
    ConversionRate: number;
    IsCorporate: boolean;
    IsActive: boolean;
  }[];
  stages: StoredStage[];
  /** Present: Opportunity has record types (and RecordTypeId), each with its sales process. */
  recordTypes?: { Id: string; Name: string; BusinessProcessId: string; IsActive: boolean }[];
  /** Sales processes with the stage values (ApiName) each allows. */
  businessProcesses?: { Id: string; Name: string; IsActive: boolean; stages: string[] }[];
  roles: { Id: string; Name: string }[];
  users: StoredUser[];
  opportunities: StoredOpportunity[];
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** The form fields of a token request, the SOQL of a query (`q`), else undefined. */
  body: unknown;
  authorization: string | undefined;
}

/**
 * A fault for a coming request: an error status with Salesforce's error body (`errorCode`,
 * `message`, an optional `Retry-After` in seconds; 502–504 in HTML as a gateway in front sends
 * them), a connection reset, an answer only after `delayMs`, a canned `body` (status 200), a
 * redirect to `location`, or every access token issued so far made invalid first (the session
 * expired: the request then gets 401 `INVALID_SESSION_ID`).
 */
export type Fault =
  | {
      status: number;
      errorCode?: string;
      /** The error's message; a function of the request may echo what it sent. */
      message?: string | ((request: RecordedRequest) => string);
      retryAfter?: string;
    }
  | { reset: true }
  | { delayMs: number }
  | { body: unknown }
  | { redirect: string }
  | { expireSessions: true };

export interface SalesforceServerOptions {
  clientId: string;
  clientSecret: string;
  org: SalesforceOrg;
  /** The API version served (`/services/data/<version>/`); default v62.0. */
  apiVersion?: string;
  /** Most records in one page, whatever batchSize asks (Salesforce may answer fewer); default 2000. */
  pageSize?: number;
  /** Most child records nested in a parent before they are paged; default 200. */
  childPageSize?: number;
  /** The org's daily API allowance and what was used of it before this server started. */
  apiLimit?: { max: number; used?: number };
}

export interface SalesforceTestServer {
  /** Base URL (the login URL and the instance alike): `http://127.0.0.1:<port>`. */
  url: string;
  requests: RecordedRequest[];
  /** The org answered; tests may change it between calls. */
  org: SalesforceOrg;
  /** API requests counted so far (the number Sforce-Limit-Info reports as used). */
  readonly apiUsed: number;
  fail(
    fault: Fault,
    options?: { times?: number; match?: (request: RecordedRequest) => boolean },
  ): void;
  close(): Promise<void>;
}

class HttpAnswer {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** An error answer in Salesforce's shape. */
function sfError(status: number, errorCode: string, message: string): HttpAnswer {
  return new HttpAnswer(status, [{ message, errorCode }]);
}

/** A query Salesforce would refuse: 400 with its error code. */
class QueryError extends Error {
  constructor(
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
  }
}

/** Salesforce's dateTime form in answers: `2026-11-23T09:50:00.000+0000`. */
function sfDateTime(iso: string): string {
  return new Date(iso).toISOString().replace('Z', '+0000');
}

type Row = Record<string, unknown>;

/** What each object holds, with the fields it has and the relationships a query may follow. */
interface ObjectSource {
  fields: Set<string>;
  rows(includeDeleted: boolean): Row[];
  /** Parent relationships: `UserRole.Name` on User. */
  parents?: Record<string, (row: Row) => Row | null>;
  /** Child relationships: `OpportunityHistories` on Opportunity. */
  children?: Record<string, { fields: Set<string>; rows: (row: Row) => Row[] }>;
}

function stageRow(org: SalesforceOrg, name: string): StoredStage | undefined {
  return org.stages.find((stage) => stage.ApiName === name);
}

function sources(org: SalesforceOrg): Record<string, ObjectSource> {
  const multiCurrency = org.currencies !== undefined;
  const recordTypes = org.recordTypes !== undefined;
  const opportunityFields = new Set([
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
    'LastModifiedDate',
    ...(multiCurrency ? ['CurrencyIsoCode'] : []),
    ...(recordTypes ? ['RecordTypeId'] : []),
  ]);
  const all: Record<string, ObjectSource> = {
    Opportunity: {
      fields: opportunityFields,
      rows: (includeDeleted) =>
        org.opportunities
          .filter((o) => includeDeleted || o.IsDeleted !== true)
          .map((o) => {
            const stage = stageRow(org, o.StageName);
            return {
              ...o,
              IsDeleted: o.IsDeleted === true,
              IsClosed: stage?.IsClosed ?? false,
              IsWon: stage?.IsWon ?? false,
              LastModifiedDate: o.SystemModstamp,
              ...(recordTypes ? { RecordTypeId: o.RecordTypeId ?? null } : {}),
            };
          }),
      children: {
        OpportunityHistories: {
          fields: new Set(['StageName', 'CreatedDate', 'Amount', 'OpportunityId']),
          rows: (row) =>
            ((row.history as StoredHistory[]) ?? []).map((h) => ({
              Amount: null,
              ...h,
              OpportunityId: row.Id,
            })),
        },
      },
    },
    OpportunityStage: {
      fields: new Set([
        'Id',
        'ApiName',
        'MasterLabel',
        'SortOrder',
        'IsActive',
        'IsClosed',
        'IsWon',
        'DefaultProbability',
        'ForecastCategoryName',
      ]),
      rows: () => org.stages.map((s, i) => ({ Id: `01J${String(i).padStart(12, '0')}`, ...s })),
    },
    RecordType: {
      fields: new Set(['Id', 'Name', 'BusinessProcessId', 'IsActive', 'SobjectType']),
      rows: () => (org.recordTypes ?? []).map((r) => ({ ...r, SobjectType: 'Opportunity' })),
    },
    BusinessProcess: {
      fields: new Set(['Id', 'Name', 'IsActive', 'TableEnumOrId']),
      rows: () =>
        (org.businessProcesses ?? []).map((b) => ({
          Id: b.Id,
          Name: b.Name,
          IsActive: b.IsActive,
          TableEnumOrId: 'Opportunity',
        })),
    },
    User: {
      fields: new Set(['Id', 'Email', 'FirstName', 'LastName', 'IsActive', 'UserRoleId']),
      rows: () => org.users.map((u) => ({ ...u })),
      parents: {
        UserRole: (row) => {
          const role = org.roles.find((r) => r.Id === row.UserRoleId);
          return role === undefined ? null : { Name: role.Name };
        },
      },
    },
    Organization: {
      fields: new Set(['Id', 'DefaultCurrencyIsoCode']),
      rows: () => [{ Id: '00D000000000001', DefaultCurrencyIsoCode: org.corporateCurrency }],
    },
  };
  if (multiCurrency) {
    all.CurrencyType = {
      fields: new Set(['Id', 'IsoCode', 'ConversionRate', 'IsCorporate', 'IsActive']),
      rows: () => (org.currencies ?? []).map((c) => ({ ...c })),
    };
  }
  return all;
}

/** A literal of the parsed query as a value to compare with. */
function literal(type: string | undefined, raw: string): unknown {
  switch (type) {
    case 'STRING':
      return raw.slice(1, -1).replace(/\\(.)/g, '$1');
    case 'BOOLEAN':
      return raw.toUpperCase() === 'TRUE';
    case 'NULL':
      return null;
    case 'INTEGER':
    case 'DECIMAL':
      return Number(raw);
    case 'DATETIME':
    case 'DATE':
      return Date.parse(raw);
    default:
      throw new QueryError('MALFORMED_QUERY', `unsupported literal ${raw}`);
  }
}

/** A stored value as comparable with a literal: instants as ms. */
function comparable(value: unknown, type: string | undefined): unknown {
  if ((type === 'DATETIME' || type === 'DATE') && typeof value === 'string')
    return Date.parse(value);
  return value;
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  return (a as number) < (b as number) ? -1 : 1;
}

class SoqlEngine {
  constructor(
    private readonly org: SalesforceOrg,
    private readonly objects: Record<string, ObjectSource>,
    private readonly dataPath: string,
  ) {}

  source(name: string | undefined): ObjectSource {
    const source = name === undefined ? undefined : this.objects[name];
    if (source === undefined)
      throw new QueryError(
        'INVALID_TYPE',
        `sObject type '${name}' is not supported. If you are attempting to use a custom object, be sure to append the '__c' after the entity name.`,
      );
    return source;
  }

  checkField(source: ObjectSource, object: string, field: string): void {
    if (!source.fields.has(field))
      throw new QueryError('INVALID_FIELD', `No such column '${field}' on entity '${object}'.`);
  }

  /** The rows a WHERE clause keeps. */
  matches(row: Row, where: WhereClause | undefined, source: ObjectSource, object: string): boolean {
    if (where === undefined) return true;
    // AND binds tighter than OR; parentheses are not needed by the connector and refused.
    const terms: boolean[][] = [[]];
    let clause: WhereClause | undefined = where;
    while (clause !== undefined) {
      const left = clause.left as Condition & {
        openParen?: number;
        closeParen?: number;
      };
      if (left.openParen || left.closeParen)
        throw new QueryError('MALFORMED_QUERY', 'parentheses in WHERE are not supported here');
      terms.at(-1)!.push(this.condition(row, left, source, object));
      const link = clause as { operator?: string; right?: WhereClause };
      if (link.operator === 'OR') terms.push([]);
      clause = link.right;
    }
    return terms.some((and) => and.every(Boolean));
  }

  condition(row: Row, c: Condition, source: ObjectSource, object: string): boolean {
    const cond = c as Condition & {
      field?: string;
      operator: string;
      literalType?: string | string[];
      value?: string | string[];
      valueQuery?: Query;
    };
    if (cond.field === undefined) throw new QueryError('MALFORMED_QUERY', 'unsupported condition');
    this.checkField(source, object, cond.field);
    const type = Array.isArray(cond.literalType) ? cond.literalType[0] : cond.literalType;
    const actual = comparable(row[cond.field], type);
    if (cond.operator === 'IN' || cond.operator === 'NOT IN') {
      let values: unknown[];
      if (cond.valueQuery !== undefined) {
        const inner = cond.valueQuery;
        const innerSource = this.source(inner.sObject);
        const field = (inner.fields?.[0] as { field?: string } | undefined)?.field;
        if (field === undefined)
          throw new QueryError('MALFORMED_QUERY', 'semi-join needs one field');
        this.checkField(innerSource, inner.sObject!, field);
        values = innerSource
          .rows(false)
          .filter((r) => this.matches(r, inner.where, innerSource, inner.sObject!))
          .map((r) => r[field]);
      } else {
        const raw = Array.isArray(cond.value) ? cond.value : [cond.value ?? ''];
        values = raw.map((v) => literal(type, v));
      }
      const found = values.some((v) => compare(actual, v) === 0);
      return cond.operator === 'IN' ? found : !found;
    }
    const wanted = literal(type, String(cond.value));
    const order = compare(actual, wanted);
    switch (cond.operator) {
      case '=':
        return actual === wanted || (actual === undefined && wanted === null) || order === 0;
      case '!=':
        return order !== 0;
      case '<':
        return actual !== null && order < 0;
      case '<=':
        return actual !== null && order <= 0;
      case '>':
        return actual !== null && order > 0;
      case '>=':
        return actual !== null && order >= 0;
      default:
        throw new QueryError('MALFORMED_QUERY', `unsupported operator ${cond.operator}`);
    }
  }

  sorted(rows: Row[], orderBy: Query['orderBy']): Row[] {
    const keys = (Array.isArray(orderBy) ? orderBy : orderBy ? [orderBy] : []) as {
      field?: string;
      order?: string;
    }[];
    return rows.slice().sort((a, b) => {
      for (const key of keys) {
        if (key.field === undefined) continue;
        const type = /Date|Modstamp/.test(key.field) ? 'DATETIME' : undefined;
        const order = compare(comparable(a[key.field], type), comparable(b[key.field], type));
        if (order !== 0) return key.order === 'DESC' ? -order : order;
      }
      return 0;
    });
  }

  /** A record as the API answers it: attributes, the fields asked for, relationships nested. */
  project(
    object: string,
    row: Row,
    fields: Query['fields'],
    source: ObjectSource,
    nest: (rows: Row[], object: string) => unknown,
  ): Row {
    const record: Row = {
      attributes: {
        type: object,
        url: `${this.dataPath}/sobjects/${object}/${String(row.Id ?? '')}`,
      },
    };
    for (const field of fields ?? []) {
      const f = field as {
        type: string;
        field?: string;
        relationships?: string[];
        subquery?: Query & { relationshipName?: string };
      };
      if (f.type === 'Field') {
        this.checkField(source, object, f.field!);
        const value = row[f.field!];
        record[f.field!] =
          typeof value === 'string' && /Date$|Modstamp$/.test(f.field!) && value.includes('T')
            ? sfDateTime(value)
            : (value ?? null);
      } else if (f.type === 'FieldRelationship') {
        const relation = f.relationships?.[0];
        const parent = relation === undefined ? undefined : source.parents?.[relation];
        if (parent === undefined)
          throw new QueryError(
            'INVALID_FIELD',
            `Didn't understand relationship '${relation}' in field path.`,
          );
        const value = parent(row);
        record[relation!] =
          value === null
            ? null
            : { attributes: { type: relation }, [f.field!]: value[f.field!] ?? null };
      } else if (f.type === 'FieldSubquery') {
        const name = f.subquery!.relationshipName!;
        const child = source.children?.[name];
        if (child === undefined)
          throw new QueryError(
            'INVALID_TYPE',
            `Didn't understand relationship '${name}' in FROM part of query call.`,
          );
        const childSource: ObjectSource = { fields: child.fields, rows: () => [] };
        const rows = this.sorted(child.rows(row), f.subquery!.orderBy).map((r) =>
          this.project('OpportunityHistory', r, f.subquery!.fields, childSource, nest),
        );
        record[name] = rows.length === 0 ? null : nest(rows, 'OpportunityHistory');
      } else throw new QueryError('MALFORMED_QUERY', `unsupported field ${JSON.stringify(field)}`);
    }
    return record;
  }

  run(
    soql: string,
    all: boolean,
    nest: (rows: Row[], object: string) => unknown,
  ): { count: number | null; records: Row[] } {
    let query: Query;
    try {
      query = parseQuery(soql) as Query;
    } catch (error) {
      throw new QueryError('MALFORMED_QUERY', `unexpected token: ${(error as Error).message}`);
    }
    const object = query.sObject!;
    const source = this.source(object);
    let rows = source.rows(all).filter((row) => this.matches(row, query.where, source, object));
    rows = this.sorted(rows, query.orderBy);
    if (typeof query.limit === 'number') rows = rows.slice(0, query.limit);
    const first = query.fields?.[0] as { type?: string; functionName?: string } | undefined;
    if (first?.type === 'FieldFunctionExpression' && first.functionName === 'COUNT')
      return { count: rows.length, records: [] };
    return {
      count: null,
      records: rows.map((row) => this.project(object, row, query.fields, source, nest)),
    };
  }

  describe(object: string): unknown {
    const source = this.source(object);
    return {
      name: object,
      label: object,
      fields: [...source.fields].map((name) => ({ name, label: name })),
      recordTypeInfos: (this.org.recordTypes ?? []).map((r) => ({
        recordTypeId: r.Id,
        name: r.Name,
        active: r.IsActive,
      })),
    };
  }
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', reject);
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** Starts the server on a free loopback port. */
export async function startSalesforceServer(
  options: SalesforceServerOptions,
): Promise<SalesforceTestServer> {
  const version = options.apiVersion ?? 'v62.0';
  const data = `/services/data/${version}`;
  const requests: RecordedRequest[] = [];
  const faults: { fault: Fault; times: number; match: (request: RecordedRequest) => boolean }[] =
    [];
  const tokens = new Set<string>();
  const locators = new Map<string, Row[]>();
  const limit = { max: options.apiLimit?.max ?? 15_000, used: options.apiLimit?.used ?? 0 };
  let base = '';
  const state = { org: options.org };

  /** A page of records from `offset`, with a query locator for the rest. */
  const pageOf = (records: Row[], offset: number, size: number, locator: string | null) => {
    const page = records.slice(offset, offset + size);
    const done = offset + size >= records.length;
    let id = locator;
    if (!done && id === null) {
      id = `01g${randomBytes(6).toString('hex')}`;
      locators.set(id, records);
    }
    return {
      totalSize: records.length,
      done,
      ...(done ? {} : { nextRecordsUrl: `${data}/query/${id}-${offset + size}` }),
      records: page,
    };
  };

  const token = (form: URLSearchParams): HttpAnswer => {
    if (form.get('grant_type') !== 'client_credentials')
      return new HttpAnswer(400, {
        error: 'unsupported_grant_type',
        error_description: 'grant type not supported',
      });
    if (
      form.get('client_id') !== options.clientId ||
      form.get('client_secret') !== options.clientSecret
    )
      return new HttpAnswer(400, {
        error: 'invalid_client',
        error_description: 'invalid client credentials',
      });
    const value = `00D000000000001!AQ${randomBytes(24).toString('base64url')}`;
    tokens.add(value);
    return new HttpAnswer(200, {
      access_token: value,
      signature: randomBytes(32).toString('base64'),
      scope: 'api',
      instance_url: base,
      id: `${base}/id/00D000000000001AAA/005000000000001AAA`,
      token_type: 'Bearer',
      issued_at: String(Date.now()),
    });
  };

  const api = (method: string, url: URL, batchSize: number): HttpAnswer => {
    if (!url.pathname.startsWith(`${data}/`))
      return sfError(404, 'NOT_FOUND', 'The requested resource does not exist');
    if (method !== 'GET')
      return sfError(
        405,
        'METHOD_NOT_ALLOWED',
        `HTTP Method '${method}' not allowed. Allowed are GET`,
      );
    const rest = url.pathname.slice(data.length + 1);
    const engine = new SoqlEngine(state.org, sources(state.org), data);
    const size = Math.min(batchSize, options.pageSize ?? 2000);
    const childSize = options.childPageSize ?? 200;
    const nest = (rows: Row[]) => pageOf(rows, 0, childSize, null);
    try {
      if (rest === 'query' || rest === 'queryAll') {
        const soql = url.searchParams.get('q');
        if (soql === null)
          return sfError(400, 'MALFORMED_QUERY', 'A query string has to be specified');
        const result = engine.run(soql, rest === 'queryAll', nest);
        if (result.count !== null)
          return new HttpAnswer(200, { totalSize: result.count, done: true, records: [] });
        return new HttpAnswer(200, pageOf(result.records, 0, size, null));
      }
      const more = /^(?:query|queryAll)\/(01g[0-9a-f]+)-(\d+)$/.exec(rest);
      if (more) {
        const records = locators.get(more[1]!);
        if (records === undefined)
          return sfError(400, 'INVALID_QUERY_LOCATOR', 'invalid query locator');
        return new HttpAnswer(200, pageOf(records, Number(more[2]), size, more[1]!));
      }
      const describe = /^sobjects\/(\w+)\/describe$/.exec(rest);
      if (describe) return new HttpAnswer(200, engine.describe(describe[1]!));
      const picklist = /^ui-api\/object-info\/Opportunity\/picklist-values\/(\w+)\/StageName$/.exec(
        rest,
      );
      if (picklist) {
        const type = state.org.recordTypes?.find((r) => r.Id === picklist[1]);
        const process = state.org.businessProcesses?.find((b) => b.Id === type?.BusinessProcessId);
        if (type === undefined || process === undefined)
          return sfError(404, 'NOT_FOUND', `Record type ${picklist[1]} not found`);
        return new HttpAnswer(200, {
          controllerValues: {},
          defaultValue: null,
          eTag: randomUUID(),
          url: url.pathname,
          values: state.org.stages
            .filter((s) => process.stages.includes(s.ApiName))
            .map((s) => ({
              attributes: {
                closed: s.IsClosed,
                defaultProbability: s.DefaultProbability,
                forecastCategoryName: s.ForecastCategoryName,
                won: s.IsWon,
              },
              label: s.MasterLabel,
              validFor: [],
              value: s.ApiName,
            })),
        });
      }
      return sfError(404, 'NOT_FOUND', 'The requested resource does not exist');
    } catch (error) {
      if (error instanceof QueryError) return sfError(400, error.errorCode, error.message);
      throw error;
    }
  };

  const send = (res: http.ServerResponse, answer: HttpAnswer): void => {
    res
      .writeHead(answer.status, {
        'content-type': 'application/json;charset=UTF-8',
        ...answer.headers,
      })
      .end(JSON.stringify(answer.body));
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    const text = await readBody(req);
    const isToken = url.pathname === '/services/oauth2/token';
    const form = new URLSearchParams(isToken ? text : '');
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: isToken ? Object.fromEntries(form) : (url.searchParams.get('q') ?? undefined),
      authorization: req.headers.authorization,
    };
    requests.push(recorded);

    const pending = faults.find((entry) => entry.times > 0 && entry.match(recorded));
    if (pending !== undefined) {
      pending.times -= 1;
      const fault = pending.fault;
      if ('reset' in fault) return void req.socket.destroy();
      if ('delayMs' in fault) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, fault.delayMs);
          res.on('close', () => {
            clearTimeout(timer);
            resolve();
          });
        });
        if (res.destroyed) return;
      } else if ('body' in fault) return send(res, new HttpAnswer(200, fault.body));
      else if ('redirect' in fault)
        return void res.writeHead(302, { location: fault.redirect }).end();
      else if ('expireSessions' in fault) tokens.clear();
      else if (fault.status >= 502 && fault.status <= 504)
        return void res
          .writeHead(fault.status, { 'content-type': 'text/html' })
          .end(`<html><body>${fault.status}</body></html>`);
      else
        return send(
          res,
          new HttpAnswer(
            fault.status,
            [
              {
                message:
                  typeof fault.message === 'function'
                    ? fault.message(recorded)
                    : (fault.message ?? `Fault ${fault.status} asked for by the test`),
                errorCode: fault.errorCode ?? 'UNKNOWN_EXCEPTION',
              },
            ],
            fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter },
          ),
        );
    }

    if (isToken) {
      if (req.method !== 'POST')
        return send(
          res,
          new HttpAnswer(400, {
            error: 'invalid_request',
            error_description: 'must use HTTP POST',
          }),
        );
      return send(res, token(form));
    }
    const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (bearer === undefined || !tokens.has(bearer))
      return send(res, sfError(401, 'INVALID_SESSION_ID', 'Session expired or invalid'));
    limit.used += 1;
    const usage = { 'sforce-limit-info': `api-usage=${limit.used}/${limit.max}` };
    if (limit.used > limit.max)
      return send(
        res,
        new HttpAnswer(
          403,
          [{ message: 'TotalRequests Limit exceeded.', errorCode: 'REQUEST_LIMIT_EXCEEDED' }],
          usage,
        ),
      );
    const asked = /batchSize=(\d+)/.exec(String(req.headers['sforce-query-options'] ?? ''))?.[1];
    const batchSize = Math.max(200, Math.min(2000, asked === undefined ? 2000 : Number(asked)));
    const answer = api(recorded.method, url, batchSize);
    send(res, new HttpAnswer(answer.status, answer.body, { ...answer.headers, ...usage }));
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    get org() {
      return state.org;
    },
    set org(org: SalesforceOrg) {
      state.org = org;
    },
    get apiUsed() {
      return limit.used;
    },
    fail(fault, { times = 1, match = () => true } = {}) {
      faults.push({ fault, times, match });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
