import type { HubSpotOwner, HubSpotPipeline } from '../import/hubspot.types';
import { Prng } from '../seed/prng';
import type { HubSpotDataset, StoredDeal } from './hubspot-server';

const DAY_MS = 86_400_000;

/** A small sales pipeline (HubSpot's own default stages) and a renewals pipeline. */
const PIPELINES: HubSpotPipeline[] = [
  {
    id: 'default',
    label: 'Sales Pipeline',
    displayOrder: 0,
    archived: false,
    stages: [
      ['appointmentscheduled', 'Appointment scheduled', 'false', '0.2'],
      ['qualifiedtobuy', 'Qualified to buy', 'false', '0.4'],
      ['contractsent', 'Contract sent', 'false', '0.8'],
      ['closedwon', 'Closed won', 'true', '1.0'],
      ['closedlost', 'Closed lost', 'true', '0.0'],
    ].map(([id, label, isClosed, probability], displayOrder) => ({
      id,
      label,
      displayOrder,
      metadata: { isClosed, probability },
    })),
  },
  {
    id: '1200001',
    label: 'Renewals',
    displayOrder: 1,
    archived: false,
    stages: [
      ['1200002', 'Up for renewal', 'false', '0.5'],
      ['1200003', 'Renewed', 'true', '1.0'],
      ['1200004', 'Churned', 'true', '0.0'],
    ].map(([id, label, isClosed, probability], displayOrder) => ({
      id,
      label,
      displayOrder,
      metadata: { isClosed, probability },
    })),
  },
];

const PEOPLE = [
  ['Grace', 'Okafor', '501', 'North'],
  ['Tomás', 'Ferreira', '501', 'North'],
  ['Yuki', 'Tanaka', '502', 'South'],
  ['Lena', 'Brandt', '502', 'South'],
] as const;

/** The owners: four sellers in two HubSpot teams. */
function owners(): HubSpotOwner[] {
  return PEOPLE.map(([firstName, lastName, teamId, teamName], i) => ({
    id: String(9001 + i),
    email: `${firstName
      .toLowerCase()
      .normalize('NFD')
      .replace(/[^a-z]/g, '')}@fake-crm.example`,
    firstName,
    lastName,
    userId: 7001 + i,
    archived: false,
    teams: [{ id: teamId, name: teamName, primary: true }],
  }));
}

export interface FakeCompanyOptions {
  /** Number of deals; default 40. */
  deals?: number;
  /** The day the company's history ends; default now. */
  now?: Date;
  /** PRNG seed; default 7. The same seed and `now` give the same company. */
  seed?: number;
}

/**
 * A small company for `npm run fake-crm`: two pipelines, four owners in two teams, and deals in
 * USD (the portal's currency) created over the last six months, each with its stage history
 * (`hs_date_entered_<stage>`), some closed won or lost. Not the demo company: other pipelines'
 * figures, other people, another currency.
 */
export function fakeCompany(options: FakeCompanyOptions = {}): HubSpotDataset {
  const random = new Prng(options.seed ?? 7);
  const now = (options.now ?? new Date()).getTime();
  const people = owners();
  const deals: StoredDeal[] = [];
  for (let i = 0; i < (options.deals ?? 40); i += 1) {
    const pipeline = random.chance(0.75) ? PIPELINES[0] : PIPELINES[1];
    const stages = pipeline.stages;
    const open = stages.filter((s) => s.metadata?.isClosed === 'false');
    const created = now - random.int(5, 180) * DAY_MS - random.int(0, DAY_MS - 1);
    // Deals walk through the open stages in order, then maybe close.
    const reached = random.int(0, open.length - 1);
    const closes = random.chance(0.45);
    const final = closes
      ? stages.filter((s) => s.metadata?.isClosed === 'true')[random.chance(0.55) ? 0 : 1]
      : open[reached];
    const path = [...open.slice(0, reached + 1), ...(closes ? [final] : [])];
    const properties: Record<string, string | null> = {};
    let at = created;
    for (const stage of path) {
      properties[`hs_date_entered_${stage.id}`] = new Date(at).toISOString();
      at = Math.min(now - 60_000, at + random.int(1, 20) * DAY_MS);
    }
    const won = final.metadata?.isClosed === 'true' && final.metadata.probability === '1.0';
    const modified = new Date(Math.min(now - 60_000, at)).toISOString();
    const id = String(51001 + i);
    deals.push({
      id,
      createdAt: new Date(created).toISOString(),
      updatedAt: modified,
      properties: {
        ...properties,
        dealname: `${pipeline.id === 'default' ? 'New deal' : 'Renewal'} ${id}`,
        amount: String(random.int(20, 400) * 50),
        deal_currency_code: 'USD',
        pipeline: pipeline.id,
        dealstage: final.id,
        createdate: new Date(created).toISOString(),
        closedate: closes
          ? (properties[`hs_date_entered_${final.id}`] ?? null)
          : new Date(now + random.int(10, 90) * DAY_MS).toISOString(),
        hubspot_owner_id: random.pick(people).id,
        hs_lastmodifieddate: modified,
        hs_is_closed: String(closes),
        hs_is_closed_won: String(closes && won),
        hs_is_closed_lost: String(closes && !won),
      },
    });
  }
  return { pipelines: PIPELINES, owners: people, deals, companyCurrency: 'USD' };
}
