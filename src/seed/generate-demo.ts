import type {
  HubSpotDeal,
  HubSpotOwner,
  HubSpotPage,
  HubSpotPipeline,
} from '../import/hubspot.types';
import {
  DEMO_COMPANIES,
  DEMO_COMPANY_KINDS,
  DEMO_PEOPLE,
  DEMO_PIPELINES,
  DEMO_TEAMS,
  DemoPipeline,
} from './demo-company';
import { Prng } from './prng';

const DAY_MS = 86_400_000;
/** HubSpot's page size for GET /crm/v3/objects/deals. */
const PAGE_SIZE = 100;

export interface DemoOptions {
  /** Number of deals; default 3000. */
  deals?: number;
  /** PRNG seed; default 20260101. The same seed and `now` give the same documents. */
  seed?: number;
  /** End of the history; deals are created over the two years before it. Default: now. */
  now?: Date;
}

/** The demo company as HubSpot API bodies, exactly what a user would save from HubSpot. */
export interface DemoDocuments {
  pipelines: HubSpotPage<HubSpotPipeline>;
  owners: HubSpotPage<HubSpotOwner>;
  deals: HubSpotPage<HubSpotDeal>[];
}

export const DEFAULT_DEMO_DEALS = 3000;
export const DEFAULT_DEMO_SEED = 20260101;

function pipelinesBody(): HubSpotPage<HubSpotPipeline> {
  return {
    results: DEMO_PIPELINES.map((p, i) => ({
      id: p.id,
      label: p.label,
      displayOrder: i,
      archived: false,
      createdAt: '2023-09-01T08:00:00.000Z',
      updatedAt: '2023-09-01T08:00:00.000Z',
      stages: p.stages.map((s, order) => ({
        id: s.id,
        label: s.label,
        displayOrder: order,
        archived: false,
        metadata: { isClosed: String(s.isClosed), probability: s.probability.toFixed(1) },
        createdAt: '2023-09-01T08:00:00.000Z',
        updatedAt: '2023-09-01T08:00:00.000Z',
      })),
    })) as HubSpotPipeline[],
  };
}

function ownersBody(): HubSpotPage<HubSpotOwner> {
  return {
    results: DEMO_PEOPLE.map((person, i) => ({
      id: person.ownerId,
      email: person.email,
      type: 'PERSON',
      firstName: person.firstName,
      lastName: person.lastName,
      userId: 8_800_001 + i,
      userIdIncludingInactive: 8_800_001 + i,
      createdAt: '2023-09-01T08:00:00.000Z',
      updatedAt: '2024-01-15T08:00:00.000Z',
      archived: false,
      teams: [
        {
          id: person.teamId,
          name: DEMO_TEAMS.find((t) => t.id === person.teamId)!.name,
          primary: true,
        },
      ],
    })) as HubSpotOwner[],
  };
}

/** One deal's life: stage by stage from creation, lost or won on the way, open where `now` stops it. */
function generateDeal(rng: Prng, index: number, now: number): HubSpotDeal {
  const pipeline: DemoPipeline = rng.chance(DEMO_PIPELINES[0].share)
    ? DEMO_PIPELINES[0]
    : DEMO_PIPELINES[1];
  const owner = rng.pick(DEMO_PEOPLE);
  const created = now - rng.int(1, 730) * DAY_MS - rng.int(0, DAY_MS - 1);
  const open = pipeline.stages.filter((s) => !s.isClosed);
  const won = pipeline.stages.find((s) => s.isClosed && s.probability === 1)!;
  const lost = pipeline.stages.find((s) => s.isClosed && s.probability === 0)!;
  const entered: Record<string, number> = { [open[0].id]: created };
  let stage = open[0];
  let at = created;
  let closedAt: number | null = null;
  for (let i = 0; ; i += 1) {
    const next = at + Math.max(1, rng.exponential(pipeline.daysPerStage)) * DAY_MS;
    if (next > now) break;
    at = Math.round(next);
    if (rng.chance(pipeline.lossPerStage)) {
      stage = lost;
    } else if (i + 1 < open.length) {
      stage = open[i + 1];
    } else {
      stage = won;
    }
    entered[stage.id] = at;
    if (stage.isClosed) {
      closedAt = at;
      break;
    }
  }
  // Open deals carry an expected close date, as HubSpot users set them.
  const closeDate = closedAt ?? now + rng.int(7, 120) * DAY_MS;
  const amount = Math.max(500, Math.round(rng.logNormal(pipeline.medianAmount, 0.6) / 100) * 100);
  const properties: Record<string, string | null> = {
    amount: rng.chance(0.5) ? `${amount}.00` : String(amount),
    closedate: new Date(closeDate).toISOString(),
    createdate: new Date(created).toISOString(),
    dealname: `${rng.pick(DEMO_COMPANIES)} ${rng.pick(DEMO_COMPANY_KINDS)} – ${pipeline.label}`,
    dealstage: stage.id,
    hs_lastmodifieddate: new Date(at).toISOString(),
    hs_object_id: String(30_000_000_001 + index),
    hubspot_owner_id: owner.ownerId,
    pipeline: pipeline.id,
  };
  for (const s of pipeline.stages) {
    const at = entered[s.id] !== undefined ? new Date(entered[s.id]).toISOString() : null;
    // HubSpot's current stage history properties, and the older ones it still fills.
    properties[`hs_v2_date_entered_${s.id}`] = at;
    properties[`hs_date_entered_${s.id}`] = at;
  }
  return {
    id: String(30_000_000_001 + index),
    properties,
    createdAt: properties.createdate,
    updatedAt: properties.hs_lastmodifieddate,
    archived: false,
  };
}

/**
 * Generates the demo company's HubSpot documents: two pipelines (New Business, 7 stages; Renewals,
 * 6 stages), twelve owners in three teams, and `deals` deals created over the two years before
 * `now` with createdate, closedate and hs_v2_date_entered_* (and hs_date_entered_*) stage history,
 * in pages of 100.
 */
export function generateDemoDocuments(options: DemoOptions = {}): DemoDocuments {
  const count = options.deals ?? DEFAULT_DEMO_DEALS;
  if (!Number.isInteger(count) || count < 0)
    throw new RangeError(`deals must be a whole number of 0 or more, got ${count}`);
  const rng = new Prng(options.seed ?? DEFAULT_DEMO_SEED);
  const now = (options.now ?? new Date()).getTime();
  const pages: HubSpotPage<HubSpotDeal>[] = [];
  for (let start = 0; start < count || pages.length === 0; start += PAGE_SIZE) {
    const results: HubSpotDeal[] = [];
    for (let i = start; i < Math.min(count, start + PAGE_SIZE); i += 1)
      results.push(generateDeal(rng, i, now));
    const last = start + PAGE_SIZE >= count;
    pages.push(
      last ? { results } : { results, paging: { next: { after: String(start + PAGE_SIZE) } } },
    );
  }
  return { pipelines: pipelinesBody(), owners: ownersBody(), deals: pages };
}
