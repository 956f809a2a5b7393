/**
 * Internal (benchmark): the company `bench:history` simulates, as HubSpot API bodies. Seeded and
 * deterministic: three deal pipelines, 48 owners in six teams, N deals with two years of stage
 * history at day 0, then each day about 2 % of the deals change (stages forward, some back, some
 * closing won or lost, amounts, owners, close dates), 0.2 % are new and a few are archived.
 */
import type {
  HubSpotDeal,
  HubSpotOwner,
  HubSpotPage,
  HubSpotPipeline,
} from '../../src/import/hubspot.types';
import { Prng } from '../../src/seed/prng';

const DAY_MS = 86_400_000;
/** HubSpot's page size for GET /crm/v3/objects/deals. */
const PAGE_SIZE = 100;
const CREATED_AT = '2024-01-08T09:00:00.000Z';

interface StageSpec {
  id: string;
  label: string;
  probability: number;
  isClosed: boolean;
}

interface PipelineSpec {
  id: string;
  label: string;
  share: number;
  medianAmount: number;
  lossPerStage: number;
  daysPerStage: number;
  stages: StageSpec[];
}

const open = (id: string, label: string, probability: number): StageSpec => ({
  id,
  label,
  probability,
  isClosed: false,
});
const closed = (id: string, label: string, probability: number): StageSpec => ({
  id,
  label,
  probability,
  isClosed: true,
});

const PIPELINES: PipelineSpec[] = [
  {
    id: 'default',
    label: 'New Business',
    share: 0.6,
    medianAmount: 12_000,
    lossPerStage: 0.16,
    daysPerStage: 11,
    stages: [
      open('appointmentscheduled', 'Appointment Scheduled', 0.1),
      open('qualifiedtobuy', 'Qualified To Buy', 0.2),
      open('presentationscheduled', 'Presentation Scheduled', 0.4),
      open('decisionmakerboughtin', 'Decision Maker Bought-In', 0.6),
      open('contractsent', 'Contract Sent', 0.8),
      closed('closedwon', 'Closed Won', 1),
      closed('closedlost', 'Closed Lost', 0),
    ],
  },
  {
    id: '90210001',
    label: 'Renewals',
    share: 0.25,
    medianAmount: 8_000,
    lossPerStage: 0.06,
    daysPerStage: 14,
    stages: [
      open('90210011', 'Renewal Due', 0.3),
      open('90210012', 'Usage Review', 0.5),
      open('90210013', 'Quote Sent', 0.7),
      open('90210014', 'Negotiation', 0.9),
      closed('90210015', 'Renewed', 1),
      closed('90210016', 'Churned', 0),
    ],
  },
  {
    id: '90210002',
    label: 'Expansion',
    share: 0.15,
    medianAmount: 20_000,
    lossPerStage: 0.12,
    daysPerStage: 9,
    stages: [
      open('90210021', 'Discovery', 0.2),
      open('90210022', 'Proposal', 0.5),
      open('90210023', 'Commit', 0.8),
      closed('90210024', 'Expanded', 1),
      closed('90210025', 'Not Expanded', 0),
    ],
  },
];

const TEAMS = ['Nordics', 'DACH', 'Benelux', 'France', 'Iberia', 'UK & Ireland'].map((name, i) => ({
  id: String(8101 + i),
  name,
}));
const FIRST_NAMES = [
  'Astrid',
  'Mikkel',
  'Aino',
  'Erik',
  'Katharina',
  'Jonas',
  'Lea',
  'Felix',
  'Sanne',
  'Bram',
  'Noor',
  'Luc',
  'Camille',
  'Hugo',
  'Lucia',
  'Mateo',
];
const LAST_NAMES = [
  'Lindqvist',
  'Sorensen',
  'Virtanen',
  'Hansen',
  'Vogel',
  'Brandt',
  'Hofer',
  'Keller',
  'Vries',
  'Janssens',
  'Bakker',
  'Peeters',
];
const OWNERS = 48;
const COMPANIES = [
  'Fjord',
  'Alpen',
  'Polder',
  'Nord',
  'Rhein',
  'Baltic',
  'Meridian',
  'Kestrel',
  'Lumen',
  'Granite',
  'Harbor',
  'Vantage',
];
const KINDS = ['Logistics', 'Foods', 'Analytics', 'Energy', 'Systems', 'Retail', 'Health', 'Labs'];

/** Share of the deals that change each day, that are new each day, that are archived each day. */
export const DAILY_CHANGE = 0.02;
export const DAILY_NEW = 0.002;
export const DAILY_ARCHIVED = 0.0002;
/** Share of the day's changes that fall on open deals (closed deals are seldom edited). */
const CHANGES_ON_OPEN = 0.8;

/** One deal as the simulation keeps it. */
interface Deal {
  index: number;
  pipeline: number;
  stage: number;
  amount: number;
  owner: number;
  created: number;
  closeDate: number;
  /** Per stage of its pipeline: when it last entered it, or null. */
  entered: (number | null)[];
  modified: number;
  name: string;
}

/** What one day sends: the changed, new and archived deals, and the whole picture after them. */
export interface Day {
  day: number;
  /** The day's snapshot time (ISO), 23:59:59 UTC of the day. */
  snapshotAt: string;
  changed: number;
  created: number;
  archived: number;
}

export interface CompanyCounts {
  live: number;
  open: number;
}

/** The simulated company: its HubSpot bodies and its days. */
export class HistoryCompany {
  private readonly rng: Prng;
  private readonly live = new Map<number, Deal>();
  private nextIndex = 0;
  /** Deals touched on the current day, and deals archived on it (HubSpot bodies for incremental). */
  private touched = new Set<number>();
  private archivedToday: HubSpotDeal[] = [];

  /**
   * @param deals deals at day 0
   * @param seed PRNG seed: the same seed, deals and `firstDay` give the same bodies every day
   * @param firstDay day 0's date (UTC midnight); its snapshot is taken at 23:59:59 that day
   * @param onePipeline every deal in the first pipeline (bench:analytics: its analyses read one
   *   definition, which then holds every deal); the draws are the same either way
   * @param owners how many owners (members) the deals are spread over, in six teams
   */
  constructor(
    private readonly deals: number,
    seed: number,
    private readonly firstDay: number,
    private readonly onePipeline = false,
    private readonly owners = OWNERS,
  ) {
    this.rng = new Prng(seed);
    const now = this.snapshotTime(0);
    for (let i = 0; i < deals; i += 1) this.addDeal(this.historicDeal(now));
  }

  snapshotTime(day: number): number {
    return this.firstDay + day * DAY_MS + DAY_MS - 1000;
  }

  counts(): CompanyCounts {
    let openDeals = 0;
    for (const deal of this.live.values())
      if (!PIPELINES[deal.pipeline].stages[deal.stage].isClosed) openDeals += 1;
    return { live: this.live.size, open: openDeals };
  }

  /** Body of GET /crm/v3/pipelines/deals. */
  pipelinesBody(): HubSpotPage<HubSpotPipeline> {
    return {
      results: PIPELINES.map((p, i) => ({
        id: p.id,
        label: p.label,
        displayOrder: i,
        archived: false,
        createdAt: CREATED_AT,
        updatedAt: CREATED_AT,
        stages: p.stages.map((s, order) => ({
          id: s.id,
          label: s.label,
          displayOrder: order,
          archived: false,
          metadata: { isClosed: String(s.isClosed), probability: s.probability.toFixed(1) },
          createdAt: CREATED_AT,
          updatedAt: CREATED_AT,
        })),
      })),
    };
  }

  /** Body of GET /crm/v3/owners: 48 owners by default, spread evenly over the six teams. */
  ownersBody(): HubSpotPage<HubSpotOwner> {
    return {
      results: Array.from({ length: this.owners }, (_, i) => {
        const firstName = FIRST_NAMES[i % FIRST_NAMES.length];
        const lastName =
          LAST_NAMES[(Math.floor(i / FIRST_NAMES.length) * 4 + (i % 4)) % LAST_NAMES.length];
        const team = TEAMS[i % TEAMS.length];
        return {
          id: String(61_000_001 + i),
          email: `${firstName}.${lastName}.${i + 1}@history-bench.example`.toLowerCase(),
          type: 'PERSON',
          firstName,
          lastName,
          userId: 9_900_001 + i,
          userIdIncludingInactive: 9_900_001 + i,
          createdAt: CREATED_AT,
          updatedAt: CREATED_AT,
          archived: false,
          teams: [{ id: team.id, name: team.name, primary: true }],
        };
      }),
    };
  }

  /** Every live deal, in pages of 100 as GET /crm/v3/objects/deals answers them. */
  allDealPages(): HubSpotPage<HubSpotDeal>[] {
    return pages([...this.live.values()].map(toHubSpot));
  }

  /** The deals changed, created or archived on the last day simulated, in pages. */
  changedDealPages(): HubSpotPage<HubSpotDeal>[] {
    const current = [...this.touched].flatMap((index) => {
      const deal = this.live.get(index);
      return deal ? [toHubSpot(deal)] : [];
    });
    return pages([...current, ...this.archivedToday]);
  }

  /** Simulates day `day` (1, 2, ...): its changes, new deals and archived deals. */
  simulateDay(day: number): Day {
    this.touched = new Set();
    this.archivedToday = [];
    const end = this.snapshotTime(day);
    const during = (): number => end - this.rng.int(0, 20 * 3600) * 1000;
    const liveIndexes = [...this.live.keys()];
    const openIndexes = liveIndexes.filter((i) => !this.isClosed(this.live.get(i)!));

    const archiveCount = Math.max(1, Math.round(this.live.size * DAILY_ARCHIVED));
    for (let n = 0; n < archiveCount; n += 1) {
      const index = this.rng.pick(liveIndexes);
      const deal = this.live.get(index);
      if (!deal) continue;
      this.live.delete(index);
      this.touched.delete(index);
      deal.modified = during();
      this.archivedToday.push({
        ...toHubSpot(deal),
        archived: true,
        archivedAt: new Date(deal.modified).toISOString(),
      } as HubSpotDeal);
    }

    const newCount = Math.max(1, Math.round(this.deals * DAILY_NEW));
    const changeCount = Math.round(this.live.size * DAILY_CHANGE);
    const openChanges = Math.min(openIndexes.length, Math.round(changeCount * CHANGES_ON_OPEN));
    // Close about as many deals as come in, so the open pipeline neither empties nor swells.
    const closeChance = openChanges === 0 ? 0 : Math.min(0.5, newCount / openChanges);
    let changed = 0;
    for (let n = 0; n < changeCount; n += 1) {
      const index = n < openChanges ? this.rng.pick(openIndexes) : this.rng.pick(liveIndexes);
      const deal = this.live.get(index);
      if (!deal || this.touched.has(index)) continue;
      this.change(deal, during(), closeChance);
      this.touched.add(index);
      changed += 1;
    }

    for (let n = 0; n < newCount; n += 1) {
      const deal = this.newDeal(during(), end);
      this.addDeal(deal);
      this.touched.add(deal.index);
    }
    return {
      day,
      snapshotAt: new Date(end).toISOString(),
      changed,
      created: newCount,
      archived: this.archivedToday.length,
    };
  }

  private isClosed(deal: Deal): boolean {
    return PIPELINES[deal.pipeline].stages[deal.stage].isClosed;
  }

  private addDeal(deal: Deal): void {
    this.live.set(deal.index, deal);
  }

  private change(deal: Deal, at: number, closeChance: number): void {
    const stages = PIPELINES[deal.pipeline].stages;
    const lastOpen = stages.findIndex((s) => s.isClosed) - 1;
    const won = stages.findIndex((s) => s.isClosed && s.probability === 1);
    const lost = stages.findIndex((s) => s.isClosed && s.probability === 0);
    deal.modified = at;
    if (this.isClosed(deal)) {
      // A closed deal is seldom edited: its amount corrected, or its name.
      if (this.rng.chance(0.5)) deal.amount = roundAmount(deal.amount * this.rng.logNormal(1, 0.1));
      else deal.name = `${deal.name.split(' (')[0]} (${this.rng.pick(KINDS)})`;
      return;
    }
    const enter = (stage: number): void => {
      deal.stage = stage;
      deal.entered[stage] = at;
    };
    const r = this.rng.next();
    if (r < closeChance) {
      enter(this.rng.chance(0.45) ? won : lost);
      deal.closeDate = at;
    } else if (r < closeChance + 0.45) {
      if (deal.stage < lastOpen) enter(deal.stage + 1);
      else deal.closeDate = at + this.rng.int(3, 30) * DAY_MS;
    } else if (r < closeChance + 0.53) {
      enter(Math.max(0, deal.stage - 1));
    } else if (r < closeChance + 0.75) {
      deal.amount = roundAmount(deal.amount * this.rng.logNormal(1, 0.25));
    } else if (r < closeChance + 0.83) {
      deal.owner = this.rng.int(0, this.owners - 1);
    } else {
      deal.closeDate = Math.max(at + DAY_MS, deal.closeDate + this.rng.int(-10, 30) * DAY_MS);
    }
  }

  private blankDeal(created: number): Deal {
    const r = this.rng.next();
    const pipeline =
      this.onePipeline || r < PIPELINES[0].share
        ? 0
        : r < PIPELINES[0].share + PIPELINES[1].share
          ? 1
          : 2;
    const spec = PIPELINES[pipeline];
    const entered: (number | null)[] = spec.stages.map(() => null);
    entered[0] = created;
    return {
      index: this.nextIndex++,
      pipeline,
      stage: 0,
      amount: roundAmount(this.rng.logNormal(spec.medianAmount, 0.6)),
      owner: this.rng.int(0, this.owners - 1),
      created,
      closeDate: created + this.rng.int(14, 120) * DAY_MS,
      entered,
      modified: created,
      name: `${this.rng.pick(COMPANIES)} ${this.rng.pick(KINDS)} – ${spec.label}`,
    };
  }

  private newDeal(at: number, end: number): Deal {
    const deal = this.blankDeal(Math.min(at, end));
    deal.closeDate = at + this.rng.int(14, 120) * DAY_MS;
    return deal;
  }

  /** A deal of day 0: created in the two years before, stage by stage since, closed or open. */
  private historicDeal(now: number): Deal {
    const created = now - this.rng.int(1, 730) * DAY_MS - this.rng.int(0, DAY_MS - 1);
    const deal = this.blankDeal(created);
    const spec = PIPELINES[deal.pipeline];
    const lastOpen = spec.stages.findIndex((s) => s.isClosed) - 1;
    let at = created;
    for (;;) {
      const next = at + Math.max(1, this.rng.exponential(spec.daysPerStage)) * DAY_MS;
      if (next > now) break;
      at = Math.round(next);
      if (this.rng.chance(spec.lossPerStage))
        deal.stage = spec.stages.findIndex((s) => s.isClosed && s.probability === 0);
      else if (deal.stage < lastOpen) deal.stage += 1;
      else deal.stage = spec.stages.findIndex((s) => s.isClosed && s.probability === 1);
      deal.entered[deal.stage] = at;
      if (spec.stages[deal.stage].isClosed) break;
    }
    deal.modified = at;
    deal.closeDate = spec.stages[deal.stage].isClosed ? at : now + this.rng.int(7, 120) * DAY_MS;
    return deal;
  }
}

function roundAmount(amount: number): number {
  return Math.max(500, Math.round(amount / 100) * 100);
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** A deal as GET /crm/v3/objects/deals answers it, with its pipeline's hs_date_entered_* properties. */
function toHubSpot(deal: Deal): HubSpotDeal {
  const spec = PIPELINES[deal.pipeline];
  const id = String(40_000_000_001 + deal.index);
  const properties: Record<string, string | null> = {
    amount: String(deal.amount),
    closedate: iso(deal.closeDate),
    createdate: iso(deal.created),
    dealname: deal.name,
    dealstage: spec.stages[deal.stage].id,
    hs_lastmodifieddate: iso(deal.modified),
    hs_object_id: id,
    hubspot_owner_id: String(61_000_001 + deal.owner),
    pipeline: spec.id,
  };
  spec.stages.forEach((stage, i) => {
    const entered = deal.entered[i];
    properties[`hs_date_entered_${stage.id}`] = entered === null ? null : iso(entered);
  });
  return {
    id,
    properties,
    createdAt: iso(deal.created),
    updatedAt: iso(deal.modified),
    archived: false,
  };
}

function pages(deals: HubSpotDeal[]): HubSpotPage<HubSpotDeal>[] {
  const result: HubSpotPage<HubSpotDeal>[] = [];
  for (let start = 0; start < deals.length || result.length === 0; start += PAGE_SIZE) {
    const results = deals.slice(start, start + PAGE_SIZE);
    const last = start + PAGE_SIZE >= deals.length;
    result.push(
      last ? { results } : { results, paging: { next: { after: String(start + PAGE_SIZE) } } },
    );
  }
  return result;
}
