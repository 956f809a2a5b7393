import type { HubSpotDeal, HubSpotPage } from './hubspot.types';
import { parseDate, text } from './parse-values';
import type { SkippedItem } from './skipped';

/** A step of reading the pages: a deal copy to take, or a note on a deal seen more than once. */
export type DealCopyStep = { deal: HubSpotDeal } | { note: SkippedItem };

/**
 * One copy of each deal across the pages. Pages overlap when deals change while they are read,
 * and a copy may lack properties another has (HubSpot returns only those a request named), so
 * the copy kept is the one modified last (`hs_lastmodifieddate`, else `updatedAt`), then the most
 * complete one (most properties with a value), then the first. In page order: each kept copy where
 * it stands, and for a deal seen more than once a note, where its last copy stands, naming the
 * rule that decided.
 */
export function pickDealCopies(pages: HubSpotPage<HubSpotDeal>[]): DealCopyStep[] {
  const copies = new Map<string, HubSpotDeal[]>();
  for (const page of pages) {
    for (const deal of page.results) {
      const list = copies.get(deal.id);
      if (list) list.push(deal);
      else copies.set(deal.id, [deal]);
    }
  }
  const kept = new Map<string, HubSpotDeal>();
  const notes = new Map<string, SkippedItem>();
  for (const [id, list] of copies) {
    const { deal, decidedBy } = bestCopy(list);
    kept.set(id, deal);
    if (list.length > 1) notes.set(id, duplicateNote(id, list.length, decidedBy));
  }
  const steps: DealCopyStep[] = [];
  // Copies met so far per deal: the note goes where the last one stands. The same object may
  // stand in two pages: it is taken once.
  const met = new Map<string, number>();
  const taken = new Set<string>();
  for (const page of pages) {
    for (const deal of page.results) {
      const count = (met.get(deal.id) ?? 0) + 1;
      met.set(deal.id, count);
      if (kept.get(deal.id) === deal && !taken.has(deal.id)) {
        taken.add(deal.id);
        steps.push({ deal });
      }
      const note = notes.get(deal.id);
      if (note && count === copies.get(deal.id)!.length) steps.push({ note });
    }
  }
  return steps;
}

export type Decision = 'modified' | 'complete' | 'first';

const DECISIONS: Record<Decision, string> = {
  modified: 'the copy with the latest hs_lastmodifieddate kept',
  complete: 'same hs_lastmodifieddate, the copy with the most properties kept',
  first: 'first occurrence kept',
};

/** Modification time in ms, or -Infinity when unknown (a copy with a date beats one without). */
function modifiedAt(deal: HubSpotDeal): number {
  const parsed = parseDate(deal.properties?.hs_lastmodifieddate ?? deal.updatedAt);
  return parsed.kind === 'ok' ? parsed.value.getTime() : Number.NEGATIVE_INFINITY;
}

function completeness(deal: HubSpotDeal): number {
  return Object.values(deal.properties ?? {}).filter((value) => text(value) !== undefined).length;
}

/** The copy to keep among copies of one deal (in page order), and which rule chose it. */
export function bestCopy(list: HubSpotDeal[]): { deal: HubSpotDeal; decidedBy: Decision } {
  const { copy, decidedBy } = chooseCopy(
    list.map((deal) => ({ deal, modified: modifiedAt(deal), complete: completeness(deal) })),
  );
  return { deal: copy.deal, decidedBy };
}

/** What the choice among copies needs of each, as `copyKeys` measures it. */
export interface CopyKeys {
  /** Modification time in ms, -Infinity when unknown. */
  modified: number;
  /** Properties with a value. */
  complete: number;
}

/** The keys a copy is chosen by (the import measures them as the copy is read). */
export function copyKeys(deal: HubSpotDeal): CopyKeys {
  return { modified: modifiedAt(deal), complete: completeness(deal) };
}

/**
 * Among copies of one deal in the order they were read, the one to keep: modified last, then
 * the most complete, then the first; and which rule decided.
 */
export function chooseCopy<T extends CopyKeys>(list: T[]): { copy: T; decidedBy: Decision } {
  let latest = Number.NEGATIVE_INFINITY;
  for (const c of list) if (c.modified > latest) latest = c.modified;
  const newest = list.filter((c) => c.modified === latest);
  let most = Number.NEGATIVE_INFINITY;
  for (const c of newest) if (c.complete > most) most = c.complete;
  const fullest = newest.filter((c) => c.complete === most);
  const decidedBy: Decision =
    newest.length < list.length
      ? 'modified'
      : fullest.length < newest.length
        ? 'complete'
        : 'first';
  return { copy: fullest[0], decidedBy };
}

/** The note on a deal read `count` (> 1) times. */
export function duplicateNote(id: string, count: number, decidedBy: Decision): SkippedItem {
  const times = count === 2 ? 'twice' : `${count} times`;
  return { id, reason: `deal appears ${times} in the deal pages; ${DECISIONS[decidedBy]}` };
}
