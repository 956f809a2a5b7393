/**
 * Internal (benchmark and the large-file CLI test): HubSpot-shaped export files of any size,
 * written page by page so that even a million deals never sit in memory: the body of
 * GET /crm/v3/pipelines/deals (3 pipelines), of GET /crm/v3/owners (`owners` owners in 20 teams)
 * and deal files, each an array of pages of 100 deals as saved while following `paging.next`.
 * Deals are deterministic for an index and a `version`: `changeDeals` makes an incremental file
 * of some deals with new amounts and stages.
 */
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { Prng } from '../../src/seed/prng';

export interface GeneratedFiles {
  pipelines: string;
  owners: string;
  deals: string[];
}

const PIPELINES = ['default', 'renewals', 'partners'];
const STAGES = [
  { id: 'appointment', isClosed: false, probability: 0.1 },
  { id: 'qualified', isClosed: false, probability: 0.3 },
  { id: 'proposal', isClosed: false, probability: 0.6 },
  { id: 'contract', isClosed: false, probability: 0.8 },
  { id: 'won', isClosed: true, probability: 1 },
  { id: 'lost', isClosed: true, probability: 0 },
];
const DAY = 86_400_000;
const PAGE = 100;
const TEAMS = 20;

/** The stage id of a stage in a pipeline: ids are unique per portal in HubSpot. */
const stageId = (pipeline: string, stage: string) => `${pipeline}-${stage}`;

function pipelinesBody() {
  return {
    results: PIPELINES.map((id, p) => ({
      id,
      label: id,
      displayOrder: p,
      archived: false,
      stages: STAGES.map((s, order) => ({
        id: stageId(id, s.id),
        label: s.id,
        displayOrder: order,
        archived: false,
        metadata: { isClosed: String(s.isClosed), probability: String(s.probability) },
      })),
    })),
  };
}

function ownersBody(owners: number) {
  return {
    results: Array.from({ length: owners }, (_, i) => ({
      id: String(1000 + i),
      email: `owner${i}@example.com`,
      firstName: 'Owner',
      lastName: String(i),
      userId: 5000 + i,
      archived: false,
      teams: [{ id: String(700 + (i % TEAMS)), name: `Team ${i % TEAMS}`, primary: true }],
    })),
  };
}

/** Deal `i` as HubSpot returns it; `version` > 0 moves it on (another amount, a later stage). */
export function generatedDeal(i: number, owners: number, now: Date, version = 0) {
  const random = new Prng(i * 7919 + 17);
  const pipeline = PIPELINES[i % PIPELINES.length];
  const created = now.getTime() - random.int(1, 720) * DAY;
  const stageIndex = Math.min(STAGES.length - 1, random.int(0, STAGES.length - 1) + version);
  const stage = STAGES[stageIndex];
  const close = stage.isClosed
    ? Math.min(now.getTime() - DAY, created + random.int(5, 200) * DAY)
    : now.getTime() + random.int(5, 200) * DAY;
  const properties: Record<string, string | null> = {
    hs_object_id: String(100000 + i),
    dealname: `Deal ${i}`,
    amount: String(random.int(5, 500) * 100 + version * 10),
    pipeline,
    dealstage: stageId(pipeline, stage.id),
    createdate: new Date(created).toISOString(),
    closedate: new Date(close).toISOString(),
    hubspot_owner_id: String(1000 + (i % owners)),
    hs_lastmodifieddate: new Date(now.getTime() - DAY + version * 1000).toISOString(),
  };
  STAGES.forEach((s, k) => {
    properties[`hs_date_entered_${stageId(pipeline, s.id)}`] =
      k <= stageIndex && (!s.isClosed || k === stageIndex)
        ? new Date(Math.min(created + k * 3 * DAY, now.getTime() - DAY)).toISOString()
        : null;
  });
  return {
    id: String(100000 + i),
    properties,
    createdAt: properties.createdate,
    updatedAt: properties.hs_lastmodifieddate,
    archived: false,
  };
}

/** Writes deal pages of the given deal indexes into one file, page by page. */
async function writeDealFile(
  file: string,
  indexes: Iterable<number>,
  deal: (i: number) => unknown,
  count: number,
): Promise<void> {
  const out = createWriteStream(file);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write('[');
  let page: unknown[] = [];
  let written = 0;
  let pages = 0;
  const flush = async (last: boolean) => {
    const body = {
      results: page,
      ...(last ? {} : { paging: { next: { after: String(written) } } }),
    };
    await write(`${pages > 0 ? ',' : ''}${JSON.stringify(body)}`);
    pages += 1;
    page = [];
  };
  for (const i of indexes) {
    page.push(deal(i));
    written += 1;
    if (page.length === PAGE && written < count) await flush(false);
  }
  await flush(true);
  await write(']');
  out.end();
  await once(out, 'finish');
}

/**
 * Writes the files of a portal with `deals` deals and `owners` owners into `dir`: deals in files
 * of at most `perFile` deals. The last page of the last file has no `paging.next`, as HubSpot's
 * last page has none; the other pages of a file carry one (each file being pages saved in turn).
 */
export async function writeHubSpotFiles(
  dir: string,
  options: { deals: number; owners: number; now: Date; perFile?: number },
): Promise<GeneratedFiles> {
  const perFile = options.perFile ?? 100_000;
  const pipelines = path.join(dir, 'pipelines.json');
  const owners = path.join(dir, 'owners.json');
  await writeFile(pipelines, JSON.stringify(pipelinesBody()));
  await writeFile(owners, JSON.stringify(ownersBody(options.owners)));
  const deals: string[] = [];
  for (let from = 0; from < options.deals; from += perFile) {
    const to = Math.min(options.deals, from + perFile);
    const file = path.join(dir, `deals-${deals.length + 1}.json`);
    await writeDealFile(
      file,
      range(from, to),
      (i) => generatedDeal(i, options.owners, options.now),
      to - from,
    );
    deals.push(file);
  }
  return { pipelines, owners, deals };
}

/** Writes an incremental deals file: `changed` deals spread over the portal, each moved on once. */
export async function writeChangedDeals(
  file: string,
  options: { deals: number; owners: number; now: Date; changed: number; version: number },
): Promise<void> {
  const step = Math.max(1, Math.floor(options.deals / options.changed));
  const indexes = Array.from(
    { length: options.changed },
    (_, k) => (k * step + options.version) % options.deals,
  );
  await writeDealFile(
    file,
    indexes,
    (i) => generatedDeal(i, options.owners, options.now, options.version),
    indexes.length,
  );
}

function* range(from: number, to: number): Iterable<number> {
  for (let i = from; i < to; i += 1) yield i;
}

/** The stages of the generated pipelines, for tests computing expected figures. */
export const GENERATED_STAGES = STAGES.map((s) => ({ ...s }));
export const GENERATED_PIPELINES = [...PIPELINES];
export { stageId as generatedStageId };
