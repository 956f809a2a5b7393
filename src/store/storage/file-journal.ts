import { open, readFile, type FileHandle } from 'node:fs/promises';
import { DirLock } from './dir-lock';
import type { Journal } from './journal';
import {
  decodePayload,
  encodeBatch,
  encodeSnapshotEnd,
  type DecodedPayload,
} from './journal/batch-codec';
import {
  chunked,
  fsyncDir,
  removeIfPresent,
  renameSynced,
  writeFileSynced,
} from './journal/durable-fs';
import {
  checkFileHeader,
  encodeFileHeader,
  encodeRecord,
  FILE_HEADER_SIZE,
  RECORD_HEADER_SIZE,
  scanRecords,
  type FileKind,
} from './journal/frame';
import { readIntactRecords } from './journal/record-reader';
import { inDir, listJournalFiles, logName, snapshotName, tempName } from './journal/journal-files';
import { CorruptJournalError, JournalStateError } from './journal/journal-error';
import { LogWriter, type WriterStats } from './journal/log-writer';
import type { LoadedMutation, Mutation } from './mutation';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from './private-dir';
import { decodedMutation } from './stored-values';

/** The moments of a compaction, in order; a crash after any of them must recover cleanly. */
export type CompactionStep =
  /** snapshot N+1 is written and fsynced under its temp name */
  | 'snapshot-written'
  /** log N+1 (carrying the records appended during the compaction) is in place */
  | 'log-installed'
  /** snapshot N+1 is renamed into place: from here on, recovery uses generation N+1 */
  | 'snapshot-installed'
  /** the writer appends to log N+1; generation N files are still on disk */
  | 'switched';

export interface FileJournalOptions {
  /**
   * Called after each compaction step; a throw stops the compaction right there, as a crash would.
   * For crash-recovery tests only.
   */
  afterCompactionStep?: (step: CompactionStep) => void;
}

/** Counters of the journal's work, for tests and the benchmark. */
export interface FileJournalStats extends WriterStats {
  /** Current generation (number of completed compactions since the directory was created). */
  generation: number;
  compactions: number;
}

/** Most documents per snapshot record: keeps records around a megabyte at typical document sizes. */
const SNAPSHOT_DOCS_PER_RECORD = 1000;

type State =
  | { kind: 'new' }
  | { kind: 'open'; lock: DirLock; writer: LogWriter; generation: number }
  | { kind: 'closed' };

/**
 * The durable journal of the embedded store, in one data directory:
 * `journal-N.log` (append-only log of batches), `snapshot-N.bson` (state at the start of log N,
 * none for N = 0) and `mongod.lock`. See journal/frame.ts for the byte format. The directory is
 * kept private (0700, files 0600: see private-dir.ts): it holds every document in clear.
 *
 * Compaction order (each arrow is an fsync'd step; a crash between any two recovers):
 * write snapshot N+1 to a temp file → write log N+1 (records appended meanwhile) to a temp file
 * and rename it in → rename snapshot N+1 in (the switch point: recovery now picks N+1) →
 * append to log N+1 → delete generation N. On open the highest snapshot wins and everything else
 * is a leftover to delete.
 */
export class FileJournal implements Journal {
  private state: State = { kind: 'new' };
  private logRecordBytes = 0;
  private snapshotFileBytes = 0;
  private compacting: Promise<void> | undefined;
  /** Frames appended since the running compaction captured its state: they go into the next log. */
  private carried: Buffer[] | undefined;
  private compactions = 0;

  /**
   * @param dir the data directory; created (mode 0700) if missing, tightened if more open. The
   *   default (`DATA_DIR`, else `./data`) is chosen by the callers: connectDatabase() and the
   *   `npm run db` CLI.
   */
  constructor(
    readonly dir: string,
    private readonly options: FileJournalOptions = {},
  ) {}

  get logBytes(): number {
    return this.logRecordBytes;
  }

  /** Size of the current snapshot file (0 before the first compaction): the live data, written compactly. */
  get snapshotBytes(): number {
    return this.snapshotFileBytes;
  }

  get stats(): FileJournalStats {
    const open = this.state.kind === 'open' ? this.state : undefined;
    return {
      ...(open ? open.writer.stats : { records: 0, syncs: 0, bytes: 0 }),
      generation: open?.generation ?? 0,
      compactions: this.compactions,
    };
  }

  async open(apply?: (mutation: LoadedMutation) => void): Promise<Mutation[]> {
    if (this.state.kind !== 'new') {
      throw new JournalStateError(`open() expects a new journal; this one is ${this.state.kind}`);
    }
    ensurePrivateDir(this.dir);
    const lock = DirLock.acquire(this.dir);
    try {
      const mutations: Mutation[] = [];
      const { generation, logBytes } = await this.recover(
        apply ?? ((mutation) => void mutations.push(decodedMutation(mutation))),
      );
      const handle = await open(inDir(this.dir, logName(generation)), 'a', PRIVATE_FILE_MODE);
      this.state = { kind: 'open', lock, writer: new LogWriter(handle), generation };
      this.logRecordBytes = logBytes;
      return mutations;
    } catch (err) {
      lock.release();
      throw err;
    }
  }

  append(batch: Mutation[]): void {
    const { writer } = this.opened('append');
    // Serialised now, not at flush time: the caller may reuse or change these objects afterwards.
    const frame = encodeRecord(encodeBatch(batch));
    writer.append(frame);
    this.carried?.push(frame);
    this.logRecordBytes += frame.length;
  }

  sync(): Promise<void> {
    return this.opened('sync').writer.sync();
  }

  /**
   * `state` is read synchronously inside this call, so it must describe exactly what has been
   * appended so far (the catalog applies and appends in the same tick). A compaction already
   * running is joined rather than started twice.
   */
  compact(state: () => Iterable<LoadedMutation>): Promise<void> {
    this.opened('compact');
    this.compacting ??= this.runCompaction(state).finally(() => {
      this.compacting = undefined;
      this.carried = undefined;
    });
    return this.compacting;
  }

  async close(): Promise<void> {
    if (this.state.kind !== 'open') {
      this.state = { kind: 'closed' };
      return;
    }
    const { writer, lock } = this.state;
    await this.compacting?.catch(() => undefined);
    this.state = { kind: 'closed' };
    try {
      await writer.close();
    } finally {
      lock.release();
    }
  }

  private opened(operation: string): Extract<State, { kind: 'open' }> {
    if (this.state.kind !== 'open') {
      throw new JournalStateError(
        `${operation}() expects an open journal; this one is ${this.state.kind}`,
      );
    }
    return this.state;
  }

  // --- recovery -------------------------------------------------------------------------------

  /**
   * Hands every mutation of the current generation to `apply` as it is decoded, so that what a
   * later record replaces is garbage before the end and no file is held whole besides the log.
   */
  private async recover(
    apply: (mutation: LoadedMutation) => void,
  ): Promise<{ generation: number; logBytes: number }> {
    const listing = listJournalFiles(this.dir);
    const generation = listing.snapshots.at(-1) ?? 0;
    if (generation > 0) this.snapshotFileBytes = await this.readSnapshot(generation, apply);
    let logBytes = 0;
    if (listing.logs.includes(generation)) {
      logBytes = await this.readLog(generation, apply);
    } else if (generation === 0 && listing.logs.length === 0) {
      await this.installEmptyLog(0);
    } else {
      // Generation 0 without its log but with later logs, or a snapshot without its log: files
      // were removed by hand. Starting empty would silently drop what the other files hold.
      const evidence = generation > 0 ? snapshotName(generation) : logName(listing.logs[0]);
      throw new CorruptJournalError(
        inDir(this.dir, logName(generation)),
        0,
        `file is missing, but ${evidence} exists (a log is always installed before its snapshot)`,
      );
    }
    // Leftovers of interrupted or finished compactions. Safe: generation `generation` is complete.
    for (const old of listing.snapshots)
      if (old !== generation) await removeIfPresent(inDir(this.dir, snapshotName(old)));
    for (const old of listing.logs)
      if (old !== generation) await removeIfPresent(inDir(this.dir, logName(old)));
    for (const temp of listing.temps) await removeIfPresent(inDir(this.dir, temp));
    await fsyncDir(this.dir);
    return { generation, logBytes };
  }

  /** Applies a snapshot's mutations, checking its end marker; returns the file's size. */
  private async readSnapshot(
    generation: number,
    apply: (mutation: LoadedMutation) => void,
  ): Promise<number> {
    const file = inDir(this.dir, snapshotName(generation));
    let records = 0;
    let end: number | undefined;
    let bytes = FILE_HEADER_SIZE;
    for await (const payload of readIntactRecords(file, 'snapshot', generation)) {
      bytes += payload.length + RECORD_HEADER_SIZE;
      if (end !== undefined)
        throw new CorruptJournalError(file, 0, 'end marker in the middle of a snapshot');
      const decoded = this.decode(payload, records, file);
      if (decoded.kind === 'end') {
        end = decoded.records;
        continue;
      }
      records++;
      for (const mutation of decoded.batch) apply(mutation);
    }
    if (end !== records) {
      throw new CorruptJournalError(
        file,
        bytes,
        'snapshot has no end marker or a wrong record count',
      );
    }
    return bytes;
  }

  /** Applies a log's mutations, cutting off a torn tail; returns the bytes of its records. */
  private async readLog(
    generation: number,
    apply: (mutation: LoadedMutation) => void,
  ): Promise<number> {
    const file = inDir(this.dir, logName(generation));
    const buf = await readFile(file);
    checkFileHeader(buf, file, 'log', generation);
    const scan = scanRecords(buf, file);
    scan.payloads.forEach((payload, index) => {
      const decoded = this.decode(payload, index, file);
      if (decoded.kind !== 'batch')
        throw new CorruptJournalError(file, 0, 'snapshot end marker in a log');
      for (const mutation of decoded.batch) apply(mutation);
    });
    if (scan.tornBytes > 0) {
      // An append interrupted by a crash: never acknowledged, so dropped; cut it off so the next
      // append does not land behind garbage.
      const handle = await open(file, 'r+');
      try {
        await handle.truncate(scan.validEnd);
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
    return scan.validEnd - FILE_HEADER_SIZE;
  }

  private decode(payload: Buffer, index: number, file: string): DecodedPayload {
    try {
      return decodePayload(payload);
    } catch (err) {
      // The checksum matched, so these bytes were written like this: a format or code bug.
      throw new CorruptJournalError(
        file,
        0,
        `record ${index} has a valid checksum but does not decode: ${(err as Error).message}`,
      );
    }
  }

  private async installEmptyLog(generation: number): Promise<void> {
    await this.installFile('log', generation, []);
  }

  /** Writes a complete file under a temp name, fsyncs it and renames it into place. */
  private async installFile(kind: FileKind, generation: number, frames: Buffer[]): Promise<void> {
    const name = kind === 'log' ? logName(generation) : snapshotName(generation);
    const temp = inDir(this.dir, tempName(name));
    await writeFileSynced(temp, chunked([encodeFileHeader(kind, generation), ...frames]));
    await renameSynced(temp, inDir(this.dir, name), this.dir);
  }

  // --- compaction -----------------------------------------------------------------------------

  private async runCompaction(state: () => Iterable<LoadedMutation>): Promise<void> {
    const { writer, generation } = this.opened('compact');
    const next = generation + 1;
    // Capture the state and start carrying new appends in the same tick: nothing falls between.
    // The capture holds the documents themselves (the store never changes a stored document in
    // place; a write stores a new one): they are serialised piece by piece while the file is
    // written, so the snapshot is never whole in memory and other commands run in between.
    const mutations = [...state()];
    this.carried = [];
    const step = (name: CompactionStep): void => this.options.afterCompactionStep?.(name);

    const snapshotTemp = inDir(this.dir, tempName(snapshotName(next)));
    let snapshotBytes = 0;
    const nextLog = inDir(this.dir, logName(next));
    try {
      snapshotBytes = await writeFileSynced(snapshotTemp, chunked(snapshotFile(next, mutations)));
      step('snapshot-written');
    } catch (err) {
      await removeIfPresent(snapshotTemp).catch(() => undefined);
      throw err;
    }

    await writer.exclusive(async () => {
      // Inside the writer's turn: no flush runs, so what is queued stays queued until we decide.
      const carried = this.carried ?? [];
      this.carried = undefined;
      const taken = writer.takePending();
      const bytesAtTake = this.logRecordBytes;
      let installed = false;
      try {
        await this.installFile('log', next, carried);
        step('log-installed');
        await renameSynced(snapshotTemp, inDir(this.dir, snapshotName(next)), this.dir);
        installed = true;
        step('snapshot-installed');
        const handle: FileHandle = await open(nextLog, 'a', PRIVATE_FILE_MODE);
        // Records queued before the capture are in the snapshot, those after it in log N+1:
        // all of them are durable now.
        const previous = writer.switchTo(handle, taken.seq);
        this.state = { ...this.opened('compact'), generation: next };
        this.snapshotFileBytes = snapshotBytes;
        // The new log holds the carried records, plus whatever was appended during this step.
        this.logRecordBytes =
          carried.reduce((sum, frame) => sum + frame.length, 0) +
          (this.logRecordBytes - bytesAtTake);
        this.compactions++;
        await previous.close();
        step('switched');
      } catch (err) {
        if (installed) {
          // Past the switch point recovery uses generation N+1, but we could not move the writer
          // there: acknowledging more writes into log N would lose them. Stop writing.
          writer.fail(
            new JournalStateError(
              'compaction failed after installing its snapshot; restart the server',
              { cause: err },
            ),
          );
        } else {
          writer.restorePending(taken.frames);
          await removeIfPresent(snapshotTemp).catch(() => undefined);
          await removeIfPresent(nextLog).catch(() => undefined);
          await removeIfPresent(`${nextLog}.tmp`).catch(() => undefined);
        }
        throw err;
      }
    });

    await removeIfPresent(inDir(this.dir, logName(generation)));
    if (generation > 0) await removeIfPresent(inDir(this.dir, snapshotName(generation)));
    await fsyncDir(this.dir);
  }
}

/**
 * A snapshot file, produced lazily: its header, the state's mutations (large inserts split into
 * records of at most SNAPSHOT_DOCS_PER_RECORD documents), then the end marker.
 */
function* snapshotFile(generation: number, state: readonly LoadedMutation[]): Generator<Buffer> {
  yield encodeFileHeader('snapshot', generation);
  let records = 0;
  for (const mutation of state) {
    if (
      mutation.op === 'insert' &&
      'docs' in mutation &&
      mutation.docs.length > SNAPSHOT_DOCS_PER_RECORD
    ) {
      for (let i = 0; i < mutation.docs.length; i += SNAPSHOT_DOCS_PER_RECORD) {
        const docs = mutation.docs.slice(i, i + SNAPSHOT_DOCS_PER_RECORD);
        yield encodeRecord(encodeBatch([{ op: 'insert', ns: mutation.ns, docs }]));
        records++;
      }
    } else {
      yield encodeRecord(encodeBatch([mutation]));
      records++;
    }
  }
  yield encodeRecord(encodeSnapshotEnd(records));
}
