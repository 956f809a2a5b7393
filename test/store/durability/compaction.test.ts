import { cpSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { Catalog, CLOSE_COMPACTION_MIN_BYTES } from '../../../src/store/storage/catalog';
import { FileJournal, type CompactionStep } from '../../../src/store/storage/file-journal';
import type { Mutation } from '../../../src/store/storage/mutation';
import { applyMutations, modelAsMutations, tempDirs, type ModelState } from './journal-fixtures';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const insert = (i: number): Mutation => ({
  op: 'insert',
  ns: 'app.t',
  docs: [{ _id: i, v: `value-${i}` }],
});
const ids = (state: ModelState): number[] =>
  [...(state.get('app.t')?.values() ?? [])].map((doc) => doc._id as number).sort((a, b) => a - b);
const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** A pid that certainly belongs to no running process: a child that has already exited. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid as number;

async function readState(dir: string): Promise<ModelState> {
  const journal = new FileJournal(dir);
  const state = applyMutations(await journal.open());
  await journal.close();
  return state;
}

describe('FileJournal compaction', () => {
  it('replaces the log by a snapshot and keeps appending after it', async () => {
    const dir = dirs.make();
    const journal = new FileJournal(dir);
    const model = applyMutations(await journal.open());
    for (let i = 1; i <= 20; i++) {
      journal.append([insert(i)]);
      applyMutations([insert(i)], model);
    }
    journal.append([{ op: 'delete', ns: 'app.t', ids: [3, 4] }]);
    applyMutations([{ op: 'delete', ns: 'app.t', ids: [3, 4] }], model);
    await journal.sync();
    const before = journal.logBytes;

    await journal.compact(() => modelAsMutations(model));
    expect(journal.logBytes).toBe(0);
    expect(before).toBeGreaterThan(0);
    expect(journal.stats).toMatchObject({ generation: 1, compactions: 1 });
    expect(readdirSync(dir).sort()).toEqual([
      'journal-0000000001.log',
      'mongod.lock',
      'snapshot-0000000001.bson',
    ]);

    journal.append([insert(21)]);
    await journal.sync();
    await journal.close();
    expect(ids(await readState(dir))).toEqual([1, 2, ...range(5, 21)]);
  });

  it('keeps writes acknowledged while a compaction runs', async () => {
    const dir = dirs.make();
    const journal = new FileJournal(dir);
    const model = applyMutations(await journal.open());
    for (let i = 1; i <= 100; i++) {
      journal.append([insert(i)]);
      applyMutations([insert(i)], model);
    }
    await journal.sync();
    const compaction = journal.compact(() => modelAsMutations(model));
    // Concurrent writers, each acknowledged on its own.
    const writers = range(101, 150).map(async (i) => {
      journal.append([insert(i)]);
      applyMutations([insert(i)], model);
      await journal.sync();
    });
    await Promise.all([compaction, ...writers]);
    // A second compaction on top of the first.
    await journal.compact(() => modelAsMutations(model));
    expect(journal.stats.generation).toBe(2);
    await journal.close();
    expect(ids(await readState(dir))).toEqual(range(1, 150));
    expect(readdirSync(dir).sort()).toEqual(['journal-0000000002.log', 'snapshot-0000000002.bson']);
  });

  it('joins a compaction already running instead of starting another', async () => {
    const journal = new FileJournal(dirs.make());
    await journal.open();
    journal.append([insert(1)]);
    const state = (): Iterable<Mutation> => [insert(1)];
    const first = journal.compact(state);
    expect(journal.compact(state)).toBe(first);
    await first;
    expect(journal.stats.compactions).toBe(1);
    await journal.close();
  });

  // What a crash right after each step leaves on disk is exactly the directory at that moment:
  // the hook copies it (with a lock file of a dead process, as a killed server leaves it).
  const steps: CompactionStep[] = [
    'snapshot-written',
    'log-installed',
    'snapshot-installed',
    'switched',
  ];
  it.each(steps)(
    'recovers every acknowledged write after a crash right after %s',
    async (crashStep) => {
      const dir = dirs.make();
      const crashCopy = join(dirs.make(), 'crashed');
      const acked = new Set<number>();
      let ackedAtCrash: number[] = [];
      const journal = new FileJournal(dir, {
        afterCompactionStep: (step) => {
          if (step !== crashStep) return;
          ackedAtCrash = [...acked];
          cpSync(dir, crashCopy, { recursive: true });
          writeFileSync(join(crashCopy, 'mongod.lock'), `${deadPid()}\n`);
        },
      });
      const model = applyMutations(await journal.open());
      const write = async (i: number): Promise<void> => {
        journal.append([insert(i)]);
        applyMutations([insert(i)], model);
        await journal.sync();
        acked.add(i);
      };
      for (const i of range(1, 40)) await write(i);
      await Promise.all([
        journal.compact(() => modelAsMutations(model)),
        ...range(41, 80).map(write),
      ]);
      await journal.close();

      const recovered = ids(await readState(crashCopy));
      for (const i of ackedAtCrash) expect(recovered).toContain(i);
      expect(recovered.every((i) => i >= 1 && i <= 80)).toBe(true);
      // Recovery left exactly one consistent generation behind, and it takes new writes.
      const files = readdirSync(crashCopy).filter((name) => name !== 'mongod.lock');
      expect(files).toHaveLength(
        crashStep === 'snapshot-written' || crashStep === 'log-installed' ? 1 : 2,
      );
      const again = new FileJournal(crashCopy);
      await again.open();
      again.append([insert(81)]);
      await again.sync();
      await again.close();
      expect(ids(await readState(crashCopy))).toContain(81);
      // And the journal that did not crash has everything.
      expect(ids(await readState(dir))).toEqual(range(1, 80));
    },
  );

  it('removes a half-written snapshot temp file and a log without its snapshot on open', async () => {
    const dir = dirs.make();
    const journal = new FileJournal(dir);
    await journal.open();
    journal.append([insert(1)]);
    await journal.sync();
    await journal.close();
    writeFileSync(join(dir, 'snapshot-0000000001.bson.tmp'), Buffer.from('PGJS half written'));
    writeFileSync(join(dir, 'journal-0000000001.log'), Buffer.from('PGJL orphan'));
    expect(ids(await readState(dir))).toEqual([1]);
    expect(readdirSync(dir)).toEqual(['journal-0000000000.log']);
  });

  it('refuses a snapshot whose log is missing', async () => {
    const dir = dirs.make();
    const journal = new FileJournal(dir);
    await journal.open();
    journal.append([insert(1)]);
    await journal.compact(() => [insert(1)]);
    await journal.close();
    rmSync(join(dir, 'journal-0000000001.log'));
    await expect(new FileJournal(dir).open()).rejects.toThrow(
      'journal-0000000001.log at byte 0: file is missing, but snapshot-0000000001.bson exists',
    );
  });

  it('refuses to start empty when the first log is missing but a later one exists', async () => {
    const dir = dirs.make();
    writeFileSync(join(dir, 'journal-0000000003.log'), Buffer.from('PGJL whatever'));
    await expect(new FileJournal(dir).open()).rejects.toThrow(
      'journal-0000000000.log at byte 0: file is missing, but journal-0000000003.log exists',
    );
  });

  it('counts records appended during a compaction in the new log size', async () => {
    const dir = dirs.make();
    let journal: FileJournal | undefined = undefined;
    journal = new FileJournal(dir, {
      // Appending inside the step that swaps the logs: the record lands in the new log later.
      afterCompactionStep: (step) =>
        void (step === 'log-installed' && journal!.append([insert(3)])),
    });
    await journal.open();
    journal.append([insert(1)]);
    await journal.sync();
    const compaction = journal.compact(() => [insert(1)]);
    journal.append([insert(2)]); // carried into the new log by the compaction
    await Promise.all([compaction, journal.sync()]);
    await journal.sync();
    const { size } = statSync(join(dir, 'journal-0000000001.log'));
    expect(journal.logBytes).toBe(size - 16);
    await journal.close();
    expect(ids(await readState(dir))).toEqual([1, 2, 3]);
  });

  it('refuses a snapshot cut short', async () => {
    const dir = dirs.make();
    const journal = new FileJournal(dir);
    await journal.open();
    const docs = range(1, 3000).map((i) => ({ _id: i }));
    await journal.compact(() => [{ op: 'insert', ns: 'app.t', docs }]);
    await journal.close();
    const snapshot = join(dir, 'snapshot-0000000001.bson');
    const { size } = statSync(snapshot);
    truncateSync(snapshot, size - 40);
    await expect(new FileJournal(dir).open()).rejects.toThrow(
      /snapshot-0000000001\.bson at byte \d+: \d+ damaged bytes at the end of a snapshot/,
    );
  });
});

describe('compaction at a clean close', () => {
  /** The ids the data directory holds, read back by a catalog as the next start would. */
  async function idsAtStart(dir: string): Promise<number[]> {
    const catalog = await Catalog.open(new FileJournal(dir));
    const found = [...(catalog.collection('app', 't')?.docs.values() ?? [])]
      .map((doc) => doc._id as number)
      .sort((a, b) => a - b);
    await catalog.close();
    return found;
  }
  /** Inserts documents of about 1 KB until the log holds `bytes`. */
  async function fill(catalog: Catalog, journal: FileJournal, bytes: number): Promise<number> {
    let n = 0;
    while (journal.logBytes < bytes) {
      n += 1;
      await catalog.commit([
        { op: 'insert', ns: 'app.t', docs: [{ _id: n, v: 'x'.repeat(1000) }] },
      ]);
    }
    return n;
  }

  it('folds a log of CLOSE_COMPACTION_MIN_BYTES or more into a snapshot, and the next start reads it', async () => {
    const dir = dirs.make();
    const journal = new FileJournal(dir);
    const catalog = await Catalog.open(journal);
    const n = await fill(catalog, journal, CLOSE_COMPACTION_MIN_BYTES);
    await catalog.close();
    expect(readdirSync(dir).sort()).toEqual(['journal-0000000001.log', 'snapshot-0000000001.bson']);
    expect(statSync(join(dir, 'journal-0000000001.log')).size).toBeLessThan(100);
    expect(await idsAtStart(dir)).toEqual(range(1, n));
  });

  it('leaves a smaller log as it is: closing stays instant', async () => {
    const dir = dirs.make();
    const journal = new FileJournal(dir);
    const catalog = await Catalog.open(journal);
    const n = await fill(catalog, journal, CLOSE_COMPACTION_MIN_BYTES / 4);
    await catalog.close();
    expect(readdirSync(dir).sort()).toEqual(['journal-0000000000.log']);
    expect(await idsAtStart(dir)).toEqual(range(1, n));
  });
});
