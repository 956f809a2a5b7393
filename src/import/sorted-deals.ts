import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { chooseCopy, copyKeys, duplicateNote } from './deal-copies';
import type { DealPageChunk, DealPages } from './deal-pages';
import type { HubSpotDeal } from './hubspot.types';
import { byId, type DealNormaliser } from './normalise';
import type { NormalisedDeal } from './normalised.types';
import type { SkippedItem } from './skipped';

/**
 * Deal copies held in memory before a sorted run of them is spilled to the import's temporary
 * file. The import's memory for deals is about this many normalised deals while it reads, whatever
 * the import's size; an import of fewer deals never touches the disk. Small, because what the
 * garbage collector lets the heap grow to is a multiple of what is live.
 */
export const RUN_SIZE = 8192;
/**
 * Records per block of a spilled run. The merge holds a block of each run: BLOCK / RUN_SIZE of
 * the deals, about 15 700 deals of a million.
 */
const BLOCK = 128;

/** A skipped item with where it stands among the deals read, so the list keeps the input's order. */
export interface PlacedNote {
  item: SkippedItem;
  /** The position of the deal copy it is about, among every copy read. */
  pos: number;
  /** Its order among the notes of that copy (a duplicate's note comes after the copy's own). */
  sub: number;
}

/** One copy of a deal as read and normalised, with what choosing among copies needs. */
interface DealCopy {
  id: string;
  pos: number;
  modified: number;
  complete: number;
  deal: NormalisedDeal | null;
  removed: boolean;
  notes: SkippedItem[];
  skippedCurrency: string | null;
}

/** A deal of the import, one per id, in id order: the copy kept, and every note about it. */
export interface SortedDeal {
  id: string;
  /** The deal when it counts; null when it is skipped (or, incremental, leaves). */
  deal: NormalisedDeal | null;
  /** Incremental imports: the deal leaves the snapshot (archived, or no longer usable). */
  removed: boolean;
  notes: PlacedNote[];
  /** The currency the deal was skipped for, when only that kept it out. */
  skippedCurrency: string | null;
}

/** What reading the deals found, before they are taken in order. */
export interface DealsRead {
  /** Deal copies read (sound ones), duplicates included. */
  copies: number;
  /** Copies that are not archived, in incremental imports; every copy in full ones. */
  live: number;
  /** Properties (of `required`) that some live copy has a value for. */
  present: Set<string>;
}

const compareCopies = (a: DealCopy, b: DealCopy): number => byId(a.id, b.id) || a.pos - b.pos;

/**
 * A sorted run: held in memory, or spilled to the run file as serialised blocks of BLOCK records,
 * `ends[i]` where block i ends (block 0 starts at `start`).
 */
type Run = { records: DealCopy[] } | { handle: FileHandle; start: number; ends: number[] };

/**
 * The import's temporary file: every spilled run, one after another, in a directory of its own.
 * One file, read at each run's place, so that the merge holds one handle however many runs.
 */
interface RunFile {
  dir: string;
  handle: FileHandle;
  size: number;
}

async function openRunFile(): Promise<RunFile> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pipeline-gateway-import-'));
  try {
    return { dir, handle: await open(path.join(dir, 'runs'), 'wx+', 0o600), size: 0 };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Reads a run's records in order, one block at a time. */
async function* readRun(run: Run): AsyncIterable<DealCopy> {
  if ('records' in run) {
    yield* run.records;
    return;
  }
  let at = run.start;
  for (const end of run.ends) {
    const block = Buffer.alloc(end - at);
    await run.handle.read(block, 0, block.length, at);
    at = end;
    yield* deserialize(block) as DealCopy[];
  }
}

/** Appends a sorted run to the run file. */
async function writeRun(file: RunFile, records: DealCopy[]): Promise<Run> {
  const run = { handle: file.handle, start: file.size, ends: [] as number[] };
  for (let i = 0; i < records.length; i += BLOCK) {
    const block = serialize(records.slice(i, i + BLOCK));
    await file.handle.write(block, 0, block.length, file.size);
    file.size += block.length;
    run.ends.push(file.size);
  }
  return run;
}

/**
 * The deals of an import in id order, one per id, read from its pages with bounded memory: each
 * sound deal copy is normalised as it arrives, copies are kept in sorted runs of RUN_SIZE (in a
 * temporary file past the first), and the runs are merged, the copy kept chosen among a deal's
 * copies as pickDealCopies chooses it. `close()` removes the file; the merge may be taken more
 * than once (backfill looks at every deal before writing any).
 */
export class SortedDeals {
  private readonly runs: Run[] = [];
  private buffer: DealCopy[] = [];
  private file: RunFile | null = null;
  private position = 0;
  readonly read: DealsRead = { copies: 0, live: 0, present: new Set() };

  constructor(
    private readonly normaliser: DealNormaliser,
    private readonly options: { incremental: boolean; required: readonly string[] },
  ) {}

  /** Reads every chunk of `pages`, taking the sound deals `check` answers for each. */
  async readAll(
    pages: DealPages,
    check: (chunk: DealPageChunk) => HubSpotDeal[],
    options: { stop: () => boolean; onRead: (copies: number) => void },
  ): Promise<void> {
    for await (const chunk of pages) {
      for (const deal of check(chunk)) await this.add(deal);
      options.onRead(this.read.copies);
      if (options.stop()) return;
    }
  }

  /** Takes one sound deal copy. */
  async add(raw: HubSpotDeal): Promise<void> {
    const { deal, removed, notes, skippedCurrency } = this.normaliser.normaliseCopy(raw);
    const keys = copyKeys(raw);
    this.read.copies += 1;
    if (!(this.options.incremental && raw.archived === true)) {
      this.read.live += 1;
      for (const key of this.options.required) {
        const value = raw.properties?.[key];
        if (
          value !== undefined &&
          value !== null &&
          !(typeof value === 'string' && value.trim() === '')
        )
          this.read.present.add(key);
      }
    }
    this.buffer.push({
      id: raw.id,
      pos: this.position++,
      ...keys,
      deal,
      removed,
      notes,
      skippedCurrency,
    });
    if (this.buffer.length >= RUN_SIZE) await this.spill();
  }

  private async spill(): Promise<void> {
    this.buffer.sort(compareCopies);
    this.file ??= await openRunFile();
    this.runs.push(await writeRun(this.file, this.buffer));
    this.buffer = [];
  }

  /** Once every copy was added: the deals in id order, one per id. */
  async *deals(): AsyncIterable<SortedDeal> {
    if (this.buffer.length > 0) {
      this.buffer.sort(compareCopies);
      this.runs.push({ records: this.buffer });
      this.buffer = [];
    }
    let group: DealCopy[] = [];
    for await (const copy of mergeRuns(this.runs)) {
      if (group.length > 0 && group[0].id !== copy.id) {
        yield resolve(group);
        group = [];
      }
      group.push(copy);
    }
    if (group.length > 0) yield resolve(group);
  }

  /** Removes the temporary file. */
  async close(): Promise<void> {
    this.runs.length = 0;
    this.buffer = [];
    const file = this.file;
    this.file = null;
    if (file === null) return;
    try {
      await file.handle.close();
    } finally {
      await rm(file.dir, { recursive: true, force: true });
    }
  }
}

/** One deal from its copies (sorted by position): the copy kept, its notes, and a note on duplicates. */
function resolve(group: DealCopy[]): SortedDeal {
  const { copy, decidedBy } = chooseCopy(group);
  const notes: PlacedNote[] = copy.notes.map((item, sub) => ({ item, pos: copy.pos, sub }));
  if (group.length > 1) {
    notes.push({
      item: duplicateNote(copy.id, group.length, decidedBy),
      pos: group[group.length - 1].pos,
      sub: Number.MAX_SAFE_INTEGER,
    });
  }
  return {
    id: copy.id,
    deal: copy.deal,
    removed: copy.removed,
    notes,
    skippedCurrency: copy.skippedCurrency,
  };
}

/** The records of sorted runs in one sorted sequence (a binary heap over the runs' heads). */
async function* mergeRuns(runs: Run[]): AsyncIterable<DealCopy> {
  if (runs.length === 1) {
    yield* readRun(runs[0]);
    return;
  }
  const heads: { record: DealCopy; rest: AsyncIterator<DealCopy> }[] = [];
  const less = (i: number, j: number) => compareCopies(heads[i].record, heads[j].record) < 0;
  const swap = (i: number, j: number) => ([heads[i], heads[j]] = [heads[j], heads[i]]);
  const down = (from: number) => {
    let i = from;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heads.length && less(l, m)) m = l;
      if (r < heads.length && less(r, m)) m = r;
      if (m === i) return;
      swap(i, m);
      i = m;
    }
  };
  for (const run of runs) {
    const rest = readRun(run)[Symbol.asyncIterator]();
    const first = await rest.next();
    if (!first.done) heads.push({ record: first.value, rest });
  }
  for (let i = Math.floor(heads.length / 2) - 1; i >= 0; i -= 1) down(i);
  while (heads.length > 0) {
    const top = heads[0];
    yield top.record;
    const next = await top.rest.next();
    if (next.done) {
      const last = heads.pop()!;
      if (heads.length > 0) heads[0] = last;
    } else top.record = next.value;
    down(0);
  }
}
