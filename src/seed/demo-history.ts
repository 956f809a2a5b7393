import type { HubSpotDeal, HubSpotPage } from '../import/hubspot.types';
import { DEMO_PEOPLE, DEMO_PIPELINES } from './demo-company';
import type { DemoDocuments } from './generate-demo';
import { Prng } from './prng';

const DAY_MS = 86_400_000;

const CLOSED_STAGES = new Set(
  DEMO_PIPELINES.flatMap((p) => p.stages.filter((s) => s.isClosed).map((s) => s.id)),
);

/** Weeks of weekly snapshots before `now` the demo company's recent history covers. */
export const DEMO_HISTORY_WEEKS = 4;

/** The changes a deal open now went through during the recent weeks, and when. */
interface Changes {
  /** When the changes below were made; before it the deal had its earlier values. */
  at: number;
  /** Days the close date was moved later (pushed, > 0) or earlier (pulled in, < 0). */
  closeShift: number;
  /** The owner before the change, when the deal changed hands. */
  previousOwner: string | null;
  /** The amount before the change, when it changed. */
  previousAmount: string | null;
  /** Days between a deal's expected close while open and its actual close, for deals closed since. */
  expectedOffset: number;
}

/** One moment of the recent history: the deals as HubSpot held them then. */
export interface DemoMoment {
  at: Date;
  deals: HubSpotDeal[];
}

function stageEntries(deal: HubSpotDeal): Array<{ stage: string; at: number }> {
  const entries: Array<{ stage: string; at: number }> = [];
  for (const [key, value] of Object.entries(deal.properties ?? {})) {
    if (key.startsWith('hs_date_entered_') && value)
      entries.push({ stage: key.slice('hs_date_entered_'.length), at: Date.parse(value) });
  }
  return entries.sort((a, b) => a.at - b.at);
}

/**
 * The deal as HubSpot held it at `at` (null before its creation): in the stage it had entered
 * last by then, with only the stage dates up to then, and the close date, owner and amount it had
 * before its recent changes.
 */
function dealAt(deal: HubSpotDeal, changes: Changes, at: number): HubSpotDeal | null {
  const props = deal.properties ?? {};
  if (Date.parse(props.createdate!) > at) return null;
  const entries = stageEntries(deal);
  const closedAtEnd = CLOSED_STAGES.has(props.dealstage!);
  if (closedAtEnd && entries.at(-1)!.at <= at) return deal;
  // Open at `at`: in the stage entered last by then.
  const properties: Record<string, string | null | undefined> = { ...props };
  for (const e of entries) {
    const value = e.at <= at ? new Date(e.at).toISOString() : null;
    properties[`hs_date_entered_${e.stage}`] = value;
    properties[`hs_v2_date_entered_${e.stage}`] = value;
  }
  properties.dealstage = entries.filter((e) => e.at <= at).at(-1)!.stage;
  const close = Date.parse(props.closedate!);
  if (closedAtEnd) {
    // Closed since: expected then to close around when it did.
    properties.closedate = new Date(close + changes.expectedOffset * DAY_MS).toISOString();
  } else if (at < changes.at) {
    properties.closedate = new Date(close - changes.closeShift * DAY_MS).toISOString();
    if (changes.previousOwner) properties.hubspot_owner_id = changes.previousOwner;
    if (changes.previousAmount) properties.amount = changes.previousAmount;
  }
  return { ...deal, properties };
}

/**
 * The demo company's recent weeks: its deals at each of DEMO_HISTORY_WEEKS weekly moments before
 * `now`, then at `now` (exactly the documents given). Of the deals open now, about a third had
 * their close date pushed, one in seven pulled in, one in eight changed hands and one in six
 * changed amount, at some moment of those weeks; deals closed since were open before, expected to
 * close within three weeks of when they did. Deterministic for `seed`.
 */
export function demoHistory(docs: DemoDocuments, now: Date, seed: number): DemoMoment[] {
  const rng = new Prng(seed);
  const start = now.getTime() - DEMO_HISTORY_WEEKS * 7 * DAY_MS;
  const deals = docs.deals.flatMap((page: HubSpotPage<HubSpotDeal>) => page.results);
  const changes = deals.map((deal): Changes => {
    const props = deal.properties ?? {};
    const r = rng.next();
    const at = start + rng.int(1, DEMO_HISTORY_WEEKS * 7 - 1) * DAY_MS;
    const others = DEMO_PEOPLE.filter((p) => p.ownerId !== props.hubspot_owner_id);
    const owner = others[rng.int(0, others.length - 1)].ownerId;
    const shift = rng.int(14, 60);
    const amount = Number(props.amount);
    return {
      at,
      closeShift: r < 0.35 ? shift : r < 0.5 ? -shift : 0,
      previousOwner: r >= 0.5 && r < 0.62 ? owner : null,
      previousAmount:
        r >= 0.62 && r < 0.8
          ? String(Math.max(500, Math.round((amount * (rng.chance(0.5) ? 0.8 : 1.25)) / 100) * 100))
          : null,
      expectedOffset: rng.int(-20, 20),
    };
  });
  const moments: DemoMoment[] = [];
  for (let week = 0; week <= DEMO_HISTORY_WEEKS; week += 1) {
    const at = week === DEMO_HISTORY_WEEKS ? now.getTime() : start + week * 7 * DAY_MS;
    moments.push({
      at: new Date(at),
      deals: deals.flatMap((deal, i) => {
        const then = dealAt(deal, changes[i], at);
        return then ? [then] : [];
      }),
    });
  }
  return moments;
}
