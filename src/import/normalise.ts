import type {
  CrmImportDocuments,
  HubSpotDeal,
  HubSpotOwner,
  HubSpotPipeline,
  HubSpotStage,
} from './hubspot.types';
import type {
  NormalisedCrmData,
  NormalisedDeal,
  NormalisedDefinition,
  NormalisedOwner,
  NormalisedStage,
} from './normalised.types';
import { pickDealCopies } from './deal-copies';
import { dealAmount, ImportCurrencies } from './deal-currency';
import { dealOutcome, StageCertainty, stageForFlags } from './deal-outcome';
import { parseBoolean, parseDate, parseNumber, text } from './parse-values';
import type { SkippedItem } from './skipped';
import { type ForecastCategory, parseCrmForecastCategory } from '../domain/forecast-category';
import type { StageEntry } from '../domain/deal-history';

const STAGE_ENTERED_PREFIX = 'hs_date_entered_';
/** HubSpot's current stage history properties, read before the older `hs_date_entered_<stage>`. */
const STAGE_ENTERED_V2_PREFIX = 'hs_v2_date_entered_';

/**
 * Where a deal says its forecast category: HubSpot's rep's own choice first, then HubSpot's, then
 * Salesforce's `ForecastCategoryName`, which a deal brought over from Salesforce carries.
 */
const FORECAST_CATEGORY_PROPERTIES = [
  'hs_manual_forecast_category',
  'hs_forecast_category',
  'ForecastCategoryName',
];

/** Items without a usable displayOrder keep their input order, after the ordered ones. */
function byDisplayOrder<T extends { displayOrder?: unknown }>(items: T[]): T[] {
  const keyed = items.map((item, index) => {
    const parsed = parseNumber(item.displayOrder);
    return { item, index, order: parsed.kind === 'ok' ? parsed.value : Number.POSITIVE_INFINITY };
  });
  keyed.sort((a, b) => a.order - b.order || a.index - b.index);
  return keyed.map((k) => k.item);
}

function normaliseStage(
  stage: HubSpotStage,
  order: number,
  definitionId: string,
  skipped: SkippedItem[],
): { stage: NormalisedStage; certainty: StageCertainty } {
  const metadata = stage.metadata ?? {};
  const closed = parseBoolean(metadata.isClosed);
  let isClosed = false;
  if (closed.kind === 'ok') isClosed = closed.value;
  else {
    skipped.push({
      id: stage.id,
      reason:
        `stage of pipeline "${definitionId}" has ${closed.kind === 'absent' ? 'no metadata.isClosed' : `metadata.isClosed "${closed.raw}"`}; ` +
        "taken as open, unless a deal's hs_is_closed_won, hs_is_closed_lost or hs_is_closed says otherwise",
    });
  }
  const parsed = parseNumber(metadata.probability);
  let probability = 0;
  if (parsed.kind === 'ok' && parsed.value >= 0 && parsed.value <= 1) probability = parsed.value;
  else {
    const what =
      parsed.kind === 'absent'
        ? 'no metadata.probability'
        : `metadata.probability "${parsed.kind === 'ok' ? parsed.value : parsed.raw}", not a number from 0 to 1`;
    skipped.push({
      id: stage.id,
      reason: `stage of pipeline "${definitionId}" has ${what}; taken as 0`,
    });
  }
  const certainty: StageCertainty =
    closed.kind !== 'ok'
      ? 'closed-unknown'
      : !isClosed || (parsed.kind === 'ok' && (probability === 0 || probability === 1))
        ? 'decides'
        : 'won-or-lost-unknown';
  return {
    stage: { id: stage.id, label: text(stage.label) ?? stage.id, order, isClosed, probability },
    certainty,
  };
}

function normaliseDefinitions(pipelines: HubSpotPipeline[], skipped: SkippedItem[]) {
  const definitions: NormalisedDefinition[] = [];
  const archivedPipelines = new Set<string>();
  const archivedStages = new Map<string, Set<string>>();
  const certainties = new Map<string, Map<string, StageCertainty>>();
  byDisplayOrder(pipelines).forEach((pipeline) => {
    if (pipeline.archived === true) {
      archivedPipelines.add(pipeline.id);
      skipped.push({
        id: pipeline.id,
        reason: 'pipeline is archived; not imported, its deals are skipped',
      });
      return;
    }
    const live = pipeline.stages.filter((stage) => stage.archived !== true);
    archivedStages.set(
      pipeline.id,
      new Set(pipeline.stages.filter((s) => s.archived === true).map((s) => s.id)),
    );
    // Trust displayOrder, never the order of the array: HubSpot does not sort stages.
    const normalised = byDisplayOrder(live).map((stage, order) =>
      normaliseStage(stage, order, pipeline.id, skipped),
    );
    certainties.set(pipeline.id, new Map(normalised.map((n) => [n.stage.id, n.certainty])));
    const stages = normalised.map((n) => n.stage);
    definitions.push({
      definitionId: pipeline.id,
      label: text(pipeline.label) ?? pipeline.id,
      displayOrder: definitions.length,
      stages,
    });
  });
  return { definitions, archivedPipelines, archivedStages, certainties };
}

/** Owners that become members; the others are reported and their deals keep no member. */
function normaliseOwners(owners: HubSpotOwner[], skipped: SkippedItem[]) {
  const importable = new Map<string, NormalisedOwner>();
  const known = new Set<string>();
  for (const owner of owners) {
    if (known.has(owner.id)) {
      skipped.push({
        id: owner.id,
        reason: 'owner appears twice in owners.results; first occurrence kept',
      });
      continue;
    }
    known.add(owner.id);
    if (owner.archived === true) {
      skipped.push({
        id: owner.id,
        reason: 'owner is archived; not created as a member, its deals keep no member',
      });
      continue;
    }
    if (owner.userId === null) {
      skipped.push({
        id: owner.id,
        reason:
          'owner is deactivated (userId null); not created as a member, its deals keep no member',
      });
      continue;
    }
    const email = text(owner.email);
    if (email === undefined || !/^[^\s@]+@[^\s@]+$/.test(email)) {
      skipped.push({
        id: owner.id,
        reason: `owner has ${email === undefined ? 'no e-mail' : `an invalid e-mail "${email}"`}; not created as a member, its deals keep no member`,
      });
      continue;
    }
    const teams = (owner.teams ?? []).filter((team) => team && typeof team.id === 'string');
    const team = teams.find((t) => t.primary === true) ?? teams[0];
    importable.set(owner.id, {
      ownerId: owner.id,
      email,
      firstName: text(owner.firstName) ?? '',
      lastName: text(owner.lastName) ?? '',
      team: team ? { id: team.id, name: text(team.name) ?? team.id } : null,
    });
  }
  return { importable, known };
}

interface DealContext {
  definitions: Map<string, NormalisedDefinition>;
  archivedPipelines: Set<string>;
  archivedStages: Map<string, Set<string>>;
  importableOwners: Map<string, NormalisedOwner>;
  knownOwners: Set<string>;
  /** Per pipeline, how far each stage's metadata decides its deals' outcome. */
  certainties: Map<string, Map<string, StageCertainty>>;
  currencies: ImportCurrencies;
  incremental: boolean;
  /** Deals skipped only for their currency, by that currency (NormalisedCrmData.skippedForCurrency). */
  skippedForCurrency: Map<string, number>;
}

function flagsSent(props: Record<string, string | null | undefined>): boolean {
  return ['hs_is_closed_won', 'hs_is_closed_lost'].some(
    (key) => parseBoolean(props[key]).kind === 'ok',
  );
}

/** One deal, or null when it cannot count (the reason is pushed to `skipped`). */
function normaliseDeal(
  deal: HubSpotDeal,
  ctx: DealContext,
  skipped: SkippedItem[],
): NormalisedDeal | null {
  const skip = (reason: string) => {
    skipped.push({ id: deal.id, reason: `deal ${reason}; left out of every metric` });
    return null;
  };
  if (deal.archived === true) return skip('is archived');
  const props = deal.properties ?? {};
  const definitionId = text(props.pipeline);
  const stageId = text(props.dealstage);
  if (definitionId === undefined) return skip('has no pipeline');
  if (ctx.archivedPipelines.has(definitionId))
    return skip(`is in archived pipeline "${definitionId}"`);
  const definition = ctx.definitions.get(definitionId);
  if (!definition)
    return skip(`has pipeline "${definitionId}", which is not among the imported pipelines`);
  const certaintyOf = (id: string) => ctx.certainties.get(definitionId)?.get(id) ?? 'decides';
  let stage = stageId === undefined ? undefined : definition.stages.find((s) => s.id === stageId);
  // Where the deal's stage says nothing usable, its closed flags may still place it.
  let placed: string | null = null;
  if (!stage) {
    const problem =
      stageId === undefined
        ? 'has no stage'
        : `has stage "${stageId}", which is ${ctx.archivedStages.get(definitionId)?.has(stageId) ? 'archived in' : 'not a stage of'} pipeline "${definitionId}"`;
    const found = stageForFlags(definition, certaintyOf, props);
    // A deal without closed flags is reported as before; one with flags that cannot place it says why.
    if (found.stage === null)
      return skip(flagsSent(props) ? `${problem}, and ${found.why}` : problem);
    stage = found.stage;
    placed = `${problem}; hs_is_closed_${found.outcome} is "true": placed in "${stage.id}", the only ${found.outcome} stage of pipeline "${definitionId}"`;
  }
  const amount = dealAmount(props, ctx.currencies);
  if (amount.kind === 'skip') {
    if (amount.currency !== undefined)
      ctx.skippedForCurrency.set(
        amount.currency,
        (ctx.skippedForCurrency.get(amount.currency) ?? 0) + 1,
      );
    return skip(amount.reason);
  }

  const note = (reason: string) =>
    skipped.push({ id: deal.id, reason: `deal ${reason}; the deal is kept` });
  if (placed) note(placed);
  const ownerRaw = text(props.hubspot_owner_id);
  let ownerId: string | null = null;
  if (ownerRaw !== undefined) {
    if (ctx.importableOwners.has(ownerRaw)) ownerId = ownerRaw;
    // Incremental: an owner left out may be linked to a member already; the import resolves it.
    else if (ctx.incremental && !ctx.knownOwners.has(ownerRaw)) ownerId = ownerRaw;
    else if (!ctx.knownOwners.has(ownerRaw))
      note(`has hubspot_owner_id "${ownerRaw}", which is not among the owners: no member`);
    // A known but archived or e-mail-less owner was reported once with the owner.
  }
  const dateOf = (key: string, value: unknown): Date | null => {
    const parsed = parseDate(value);
    if (parsed.kind === 'invalid')
      note(`has ${key} "${parsed.raw}", which is not a date: taken as unknown`);
    return parsed.kind === 'ok' ? parsed.value : null;
  };
  const createdAt = dateOf('createdate', props.createdate ?? deal.createdAt);
  const stageEnteredAt: Record<string, Date> = {};
  const stageEntries: StageEntry[] = [];
  for (const s of definition.stages) {
    const v2 = `${STAGE_ENTERED_V2_PREFIX}${s.id}`;
    const key = text(props[v2]) !== undefined ? v2 : `${STAGE_ENTERED_PREFIX}${s.id}`;
    const entered = dateOf(key, props[key]);
    if (entered) {
      stageEnteredAt[s.id] = entered;
      stageEntries.push({ stageId: s.id, at: entered });
    }
  }
  // By time, stage order breaking ties (the sort is stable).
  stageEntries.sort((a, b) => a.at.getTime() - b.at.getTime());
  const outcome = dealOutcome(stage, certaintyOf(stage.id), props);
  const crmForecastCategory = crmCategoryOf(props, note);
  let closedAt = dateOf('closedate', props.closedate);
  // A closed deal without closedate closed when it entered its closed stage, when HubSpot says so.
  if (closedAt === null && outcome !== 'open') closedAt = stageEnteredAt[stage.id] ?? null;
  return {
    dealId: deal.id,
    name: text(props.dealname) ?? '',
    definitionId,
    stageId: stage.id,
    amount: amount.value,
    ownerId,
    createdAt,
    closedAt,
    outcome,
    stageEnteredAt,
    ...(crmForecastCategory ? { crmForecastCategory } : {}),
    stageEntries,
  };
}

/** The first forecast category property the deal carries, as a category; a value none names is noted and left. */
function crmCategoryOf(
  props: Record<string, string | null | undefined>,
  note: (reason: string) => void,
): ForecastCategory | null {
  for (const key of FORECAST_CATEGORY_PROPERTIES) {
    const parsed = parseCrmForecastCategory(props[key]);
    if (parsed === null) continue;
    if (typeof parsed === 'string') return parsed;
    note(
      `has ${key} "${parsed.unknown.slice(0, 40)}", which is no forecast category: its category comes from the stage`,
    );
  }
  return null;
}

export interface NormaliseOptions {
  /** Incremental import: archived deals leave (`removedDealIds`) instead of being skipped. */
  incremental?: boolean;
  /** The definitions that stand when `pipelines` is left out (the latest snapshot's). */
  baseDefinitions?: NormalisedDefinition[];
  /** The currencies amounts are counted in (docs/importing.md, "Currencies"); none when left out. */
  currencies?: ImportCurrencies;
}

/**
 * Turns structurally valid HubSpot documents into the import's model, deciding every data problem
 * (docs/importing.md): nothing here throws on bad data, it reports it in `skipped`.
 * Output order is canonical (definitions by display order, owners and deals by id) so that the
 * source hash does not depend on page order.
 */
export function normaliseCrmData(
  documents: CrmImportDocuments,
  options: NormaliseOptions = {},
): NormalisedCrmData {
  const skipped: SkippedItem[] = [];
  const incremental = options.incremental === true;
  const currencies = options.currencies ?? { configured: null, home: null };
  const { definitions, archivedPipelines, archivedStages, certainties } = documents.pipelines
    ? normaliseDefinitions(documents.pipelines.results, skipped)
    : {
        definitions: options.baseDefinitions ?? [],
        archivedPipelines: new Set<string>(),
        archivedStages: new Map<string, Set<string>>(),
        // The latest snapshot's stages were decided when they were imported.
        certainties: new Map<string, Map<string, StageCertainty>>(),
      };
  const { importable, known } = normaliseOwners(documents.owners?.results ?? [], skipped);
  const ctx: DealContext = {
    definitions: new Map(definitions.map((d) => [d.definitionId, d])),
    archivedPipelines,
    archivedStages,
    importableOwners: importable,
    knownOwners: known,
    certainties,
    currencies,
    incremental,
    skippedForCurrency: new Map(),
  };
  const deals: NormalisedDeal[] = [];
  const removedDealIds: string[] = [];
  for (const step of pickDealCopies(documents.deals)) {
    if ('note' in step) {
      skipped.push(step.note);
      continue;
    }
    const deal = step.deal;
    if (incremental && deal.archived === true) {
      removedDealIds.push(deal.id);
      continue;
    }
    const normalised = normaliseDeal(deal, ctx, skipped);
    if (normalised) deals.push(normalised);
    // Incremental: a deal carried but not usable any more leaves too, as a full import would leave it out.
    else if (incremental) removedDealIds.push(deal.id);
  }
  const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  deals.sort((a, b) => byId(a.dealId, b.dealId));
  removedDealIds.sort(byId);
  const owners = [...importable.values()].sort((a, b) => byId(a.ownerId, b.ownerId));
  const skippedForCurrency = [...ctx.skippedForCurrency]
    .map(([currency, count]) => ({ currency, deals: count }))
    .sort((a, b) => b.deals - a.deals || byId(a.currency, b.currency));
  return { definitions, owners, deals, skipped, removedDealIds, skippedForCurrency };
}
