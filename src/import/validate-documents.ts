import { BadUserInputError, FieldError } from '../errors';
import type {
  CrmImportDocuments,
  HubSpotDeal,
  HubSpotOwner,
  HubSpotPage,
  HubSpotPipeline,
} from './hubspot.types';
import { legacyShapeMessage, legacyShapeOf } from './legacy-shapes';
import { nextCursorOf, unfollowedPageOf } from './unfollowed-pages';
import {
  type DealPageChunk,
  type DealPages,
  dealPagesOf,
  isDealPages,
  pageChunks,
} from './deal-pages';
import { isCurrencyCode } from '../validation/rules';

/** Raw import request, before any check: what POST /crm/imports, the mutation and the CLI hand over. */
export interface RawCrmImport {
  pipelines?: unknown;
  owners?: unknown;
  /** One page or an array of pages in memory, or a stream of them (deal-pages.ts). */
  deals?: unknown;
  snapshotAt?: unknown;
  backfill?: unknown;
  /** The HubSpot portal's home currency (account-info `companyCurrency`), for `amount_in_home_currency`. */
  homeCurrency?: unknown;
  mode?: unknown;
  force?: unknown;
}

/** `full`: the whole picture; `incremental`: only the deals that changed (docs/importing.md). */
export type ImportMode = 'full' | 'incremental';

export const IMPORT_MODES: readonly ImportMode[] = ['full', 'incremental'];

export interface ValidatedCrmImport {
  /**
   * `pipelines` and `owners` are null when an incremental import leaves them out. `deals` holds
   * the pages when they came in memory, and is empty when they stream.
   */
  documents: CrmImportDocuments;
  /** The deal pages as the import reads them, chunk by chunk, whether they came in memory or stream. */
  dealPages: DealPages;
  /** True when the deals were checked here (in memory); a stream is checked as it is read. */
  dealsChecked: boolean;
  /** Explicit moment of the snapshot; null means import time. */
  snapshotAt: Date | null;
  backfill: boolean;
  /** Upper-case ISO 4217 code, or null when not sent. */
  homeCurrency: string | null;
  mode: ImportMode;
  /** Overrides the guard against losing data by mistake. */
  force: boolean;
}

// More than this many structural errors is noise: the first ones show what is wrong.
const MAX_ERRORS = 20;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class Checker {
  readonly errors: FieldError[] = [];

  fail(field: string, message: string): void {
    if (this.errors.length < MAX_ERRORS) this.errors.push({ field, message });
  }

  object(value: unknown, field: string, what: string): value is Record<string, unknown> {
    if (isObject(value)) return true;
    this.fail(field, `${field} must be ${what} (an object), got ${describe(value)}`);
    return false;
  }

  /** HubSpot ids are strings; integral numbers are accepted and turned into (trimmed) strings in place. */
  id(owner: Record<string, unknown>, field: string): boolean {
    const value = owner.id;
    if (typeof value === 'string' && value.trim() !== '') {
      owner.id = value.trim();
      return true;
    }
    if (typeof value === 'number' && Number.isInteger(value)) {
      owner.id = String(value);
      return true;
    }
    this.fail(
      `${field}.id`,
      `${field}.id must be a non-empty string, got ${value === undefined ? 'nothing' : describe(value)}`,
    );
    return false;
  }

  optionalString(owner: Record<string, unknown>, key: string, field: string): void {
    const value = owner[key];
    if (value !== undefined && value !== null && typeof value !== 'string') {
      this.fail(
        `${field}.${key}`,
        `${field}.${key} must be a string or null, got ${describe(value)}`,
      );
    }
  }

  results(doc: unknown, field: string, what: string): unknown[] | null {
    if (!this.object(doc, field, what)) return null;
    if (!Array.isArray(doc.results)) {
      this.fail(
        `${field}.results`,
        `${field}.results must be an array, got ${doc.results === undefined ? 'nothing' : describe(doc.results)}`,
      );
      return null;
    }
    return doc.results;
  }
}

function checkPipelines(c: Checker, doc: unknown): void {
  const results = c.results(doc, 'pipelines', 'the body of HubSpot GET /crm/v3/pipelines/deals');
  if (!results) return;
  const seen = new Set<string>();
  results.forEach((pipeline, i) => {
    const field = `pipelines.results[${i}]`;
    if (!c.object(pipeline, field, 'a deal pipeline')) return;
    if (c.id(pipeline, field)) {
      if (seen.has(pipeline.id as string))
        c.fail(`${field}.id`, `${field}.id "${pipeline.id}" appears twice in pipelines.results`);
      seen.add(pipeline.id as string);
    }
    c.optionalString(pipeline, 'label', field);
    if (!Array.isArray(pipeline.stages)) {
      c.fail(
        `${field}.stages`,
        `${field}.stages must be an array, got ${pipeline.stages === undefined ? 'nothing' : describe(pipeline.stages)}`,
      );
      return;
    }
    const stageIds = new Set<string>();
    pipeline.stages.forEach((stage: unknown, j: number) => {
      const stageField = `${field}.stages[${j}]`;
      if (!c.object(stage, stageField, 'a pipeline stage')) return;
      if (c.id(stage, stageField)) {
        if (stageIds.has(stage.id as string))
          c.fail(
            `${stageField}.id`,
            `${stageField}.id "${stage.id}" appears twice in the pipeline`,
          );
        stageIds.add(stage.id as string);
      }
      c.optionalString(stage, 'label', stageField);
      if (stage.metadata !== undefined && stage.metadata !== null)
        c.object(stage.metadata, `${stageField}.metadata`, 'stage metadata');
    });
  });
}

function checkOwners(c: Checker, doc: unknown): void {
  const results = c.results(doc, 'owners', 'the body of HubSpot GET /crm/v3/owners');
  if (!results) return;
  results.forEach((owner, i) => {
    const field = `owners.results[${i}]`;
    if (!c.object(owner, field, 'an owner')) return;
    c.id(owner, field);
    for (const key of ['email', 'firstName', 'lastName']) c.optionalString(owner, key, field);
    if (owner.teams === undefined || owner.teams === null) return;
    if (!Array.isArray(owner.teams)) {
      c.fail(`${field}.teams`, `${field}.teams must be an array, got ${describe(owner.teams)}`);
      return;
    }
    owner.teams.forEach((team: unknown, j: number) => {
      if (c.object(team, `${field}.teams[${j}]`, 'a team')) c.id(team, `${field}.teams[${j}]`);
    });
  });
}

/**
 * The structural check of deal pages, chunk by chunk as they arrive (deal-pages.ts): each page is
 * an object with a `results` array (a legacy body is named as such), every deal an object with an
 * id and flat properties. `end()` then checks what needs every page: that some were sent, and that
 * the last one's `paging.next` was followed. Failures go to the checker given.
 */
export class DealPageValidator {
  private pages = 0;
  private readonly cursors: (string | null)[] = [];
  private readonly sent: number[] = [];
  private lastTotal: unknown = undefined;
  private readonly before: number;

  constructor(
    private readonly c: Checker,
    private readonly asArray: boolean,
  ) {
    this.before = c.errors.length;
  }

  /** Whether the checker has all the failures it keeps: reading further would only find noise. */
  get full(): boolean {
    return this.c.errors.length >= MAX_ERRORS;
  }

  /** Checks a chunk; answers its deals that are sound (ids made strings), in order. */
  chunk(chunk: DealPageChunk): HubSpotDeal[] {
    const pageField = this.asArray ? `deals[${chunk.page}]` : 'deals';
    this.pages = Math.max(this.pages, chunk.page + 1);
    this.sent[chunk.page] = (this.sent[chunk.page] ?? 0) + chunk.results.length;
    const sound: HubSpotDeal[] = [];
    chunk.results.forEach((deal, k) => {
      const field = `${pageField}.results[${chunk.offset + k}]`;
      if (!this.c.object(deal, field, 'a deal')) return;
      let ok = this.c.id(deal, field);
      if (deal.properties !== undefined && deal.properties !== null) {
        if (!this.c.object(deal.properties, `${field}.properties`, 'deal properties')) return;
        for (const [key, value] of Object.entries(deal.properties)) {
          // HubSpot sends every property as a string or null; a nested value cannot be one.
          if (
            value !== null &&
            typeof value !== 'string' &&
            typeof value !== 'number' &&
            typeof value !== 'boolean'
          ) {
            ok = false;
            this.c.fail(
              `${field}.properties.${key}`,
              `${field}.properties.${key} must be a string or null, got ${describe(value)}`,
            );
          }
        }
      }
      if (ok) sound.push(deal as unknown as HubSpotDeal);
    });
    if (chunk.shell !== undefined) this.pageEnd(chunk.page, pageField, chunk.shell);
    return sound;
  }

  private pageEnd(page: number, pageField: string, shell: unknown): void {
    const legacy = legacyShapeOf(shell);
    if (legacy) {
      this.c.fail(pageField, legacyShapeMessage(pageField, legacy));
      return;
    }
    this.c.results(shell, pageField, 'a body of HubSpot GET /crm/v3/objects/deals');
    this.cursors[page] = nextCursorOf(shell);
    this.lastTotal = isObject(shell) ? shell.total : undefined;
  }

  /** Once every chunk has been checked: no page at all, or a last page not followed. */
  end(): void {
    if (this.pages === 0) {
      this.c.fail(
        'deals',
        this.asArray
          ? 'deals must be a page of HubSpot GET /crm/v3/objects/deals or a non-empty array of such pages, got an empty array'
          : 'deals is required: the HubSpot response body, saved as returned',
      );
      return;
    }
    if (this.c.errors.length > this.before) return;
    const unfollowed = unfollowedPageOf(
      Array.from({ length: this.pages }, (_, i) => ({
        cursor: this.cursors[i] ?? null,
        sent: this.sent[i] ?? 0,
      })),
      this.lastTotal,
      this.asArray,
    );
    if (unfollowed) this.c.fail(unfollowed.field, unfollowed.message);
  }
}

/** Throws the checker's failures, if any, as the import's 400. */
function throwFailures(c: Checker): void {
  if (c.errors.length === 0) return;
  const first = c.errors[0];
  const more = c.errors.length > 1 ? ` (and ${c.errors.length - 1} more)` : '';
  throw new BadUserInputError(
    `Invalid CRM import: ${first.message}${more}; nothing was imported`,
    c.errors,
  );
}

/**
 * Checks deal pages as they stream, for the import: `check` answers each chunk's sound deals and
 * `finish` throws the failures found (the import's 400, nothing written), once every chunk was
 * checked or as soon as the failures kept are full (`full`).
 */
export function dealStreamValidator(asArray: boolean): {
  check: (chunk: DealPageChunk) => HubSpotDeal[];
  readonly full: boolean;
  finish: () => void;
} {
  const c = new Checker();
  const pages = new DealPageValidator(c, asArray);
  return {
    check: (chunk) => pages.chunk(chunk),
    get full() {
      return pages.full;
    },
    finish() {
      if (!pages.full) pages.end();
      throwFailures(c);
    },
  };
}

function checkSnapshotAt(c: Checker, value: unknown): Date | null {
  if (value === undefined || value === null) return null;
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value;
  // An ISO 8601 date-time with a time zone (Z or ±hh:mm): a bare date would be ambiguous.
  if (
    typeof value === 'string' &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value)
  ) {
    const date = new Date(value);
    if (!Number.isNaN(date.getTime())) return date;
  }
  c.fail(
    'snapshot_at',
    `snapshot_at must be an ISO 8601 date-time such as "2026-03-31T23:59:59Z", got ${describe(value)}`,
  );
  return null;
}

function checkHomeCurrency(c: Checker, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (isCurrencyCode(value)) return (value as string).toUpperCase();
  c.fail(
    'home_currency',
    `home_currency must be an ISO 4217 code such as EUR or USD (HubSpot's companyCurrency), got ${describe(value)}`,
  );
  return null;
}

/**
 * Structural check of an import request, before anything is read or written: each document is an
 * object with a `results` array, every pipeline, stage, owner and deal has an id, ids are unique
 * where HubSpot guarantees it. Throws BadUserInputError naming every bad path (up to 20).
 * Data problems inside well-formed documents (missing stage, odd amount...) are not errors here:
 * the normaliser decides them and reports them as skipped.
 */
export function validateCrmDocuments(raw: RawCrmImport): ValidatedCrmImport {
  const c = new Checker();
  const mode = checkMode(c, raw.mode);
  // An incremental import may leave pipelines and owners out: the latest snapshot's stand.
  const required =
    mode === 'incremental' ? (['deals'] as const) : (['pipelines', 'owners', 'deals'] as const);
  for (const key of required) {
    if (raw[key] === undefined || raw[key] === null)
      c.fail(key, `${key} is required: the HubSpot response body, saved as returned`);
  }
  const present = (key: 'pipelines' | 'owners' | 'deals') => {
    if (raw[key] === undefined || raw[key] === null) return false;
    // A legacy body is named as such, not taken apart path by path.
    const legacy = legacyShapeOf(raw[key]);
    if (legacy) c.fail(key, legacyShapeMessage(key, legacy));
    return legacy === null;
  };
  if (present('pipelines')) checkPipelines(c, raw.pipelines);
  if (present('owners')) checkOwners(c, raw.owners);
  // Deals held in memory are checked now; a stream is checked as it is read (dealStreamValidator).
  if (present('deals') && !isDealPages(raw.deals)) {
    const pages = new DealPageValidator(c, Array.isArray(raw.deals));
    for (const chunk of pageChunks(raw.deals)) pages.chunk(chunk);
    pages.end();
  }
  const snapshotAt = checkSnapshotAt(c, raw.snapshotAt);
  if (raw.backfill !== undefined && raw.backfill !== null && typeof raw.backfill !== 'boolean') {
    c.fail('backfill', `backfill must be true or false, got ${describe(raw.backfill)}`);
  }
  const homeCurrency = checkHomeCurrency(c, raw.homeCurrency);
  if (raw.backfill === true && mode === 'incremental') {
    c.fail(
      'backfill',
      'backfill reconstructs past snapshots from every deal: it needs a full import, not an incremental one',
    );
  }
  if (raw.force !== undefined && raw.force !== null && typeof raw.force !== 'boolean') {
    c.fail('force', `force must be true or false, got ${describe(raw.force)}`);
  }
  throwFailures(c);
  const inMemory = !isDealPages(raw.deals);
  return {
    documents: {
      pipelines: (raw.pipelines ?? null) as HubSpotPage<HubSpotPipeline> | null,
      owners: (raw.owners ?? null) as HubSpotPage<HubSpotOwner> | null,
      deals: inMemory
        ? ((Array.isArray(raw.deals) ? raw.deals : [raw.deals]) as HubSpotPage<HubSpotDeal>[])
        : [],
    },
    dealPages: inMemory ? dealPagesOf(raw.deals) : (raw.deals as DealPages),
    dealsChecked: inMemory,
    snapshotAt,
    backfill: raw.backfill === true,
    homeCurrency,
    mode,
    force: raw.force === true,
  };
}

function checkMode(c: Checker, value: unknown): ImportMode {
  if (value === undefined || value === null) return 'full';
  if (typeof value === 'string' && (IMPORT_MODES as readonly string[]).includes(value))
    return value as ImportMode;
  c.fail('mode', `mode must be "full" or "incremental", got ${describe(value)}`);
  return 'full';
}
