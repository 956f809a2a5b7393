import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Catalog } from '../../../src/store/storage/catalog';
import { FileJournal } from '../../../src/store/storage/file-journal';
import type { Mutation } from '../../../src/store/storage/mutation';
import { decodedMutation } from '../../../src/store/storage/stored-values';
import { tempDirs } from './journal-fixtures';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const doc = (i: number): { _id: number; text: string } => ({
  _id: i,
  text: `document ${i} `.padEnd(200, '.'),
});
const docs = (from: number, count: number): Array<{ _id: number; text: string }> =>
  Array.from({ length: count }, (_, k) => doc(from + k));
const insert = (from: number, count: number): Mutation => ({
  op: 'insert',
  ns: 'app.t',
  docs: docs(from, count),
});
const snapshotFile = (dir: string): string =>
  readdirSync(dir).find((name) => name.startsWith('snapshot-'))!;

describe('compaction of a growing store', () => {
  it('compacts a number of times that grows with the logarithm of the data, not with the data', async () => {
    const dir = dirs.make();
    const journal = new FileJournal(dir);
    // A least threshold of 8 KB: a fixed threshold would compact about 250 times over 2 MB.
    const catalog = await Catalog.open(journal, { compactionThreshold: 8 * 1024 });
    for (let i = 0; i < 10_000; i += 10) await catalog.commit([insert(i, 10)]);
    await catalog.close();
    const { compactions } = journal.stats;
    expect(compactions).toBeGreaterThan(3);
    expect(compactions).toBeLessThan(20);
  });

  it('compacts again once the log reaches half the snapshot', async () => {
    const dir = dirs.make();
    const journal = new FileJournal(dir);
    const catalog = await Catalog.open(journal, { compactionThreshold: 1 });
    await catalog.commit([insert(0, 1000)]);
    await catalog.close();
    const snapshotBytes = journal.snapshotBytes;
    expect(snapshotBytes).toBe(statSync(join(dir, snapshotFile(dir))).size);

    const reopened = new FileJournal(dir);
    const again = await Catalog.open(reopened, { compactionThreshold: 1 });
    expect(reopened.snapshotBytes).toBe(snapshotBytes);
    // Rewriting the same documents adds to the log, not to the state.
    const half = snapshotBytes * 0.5;
    for (let i = 0; reopened.logBytes < half; i += 10) {
      expect(reopened.stats.compactions).toBe(0);
      await again.commit([{ op: 'replace', ns: 'app.t', docs: docs(i % 1000, 10) }]);
    }
    await again.close();
    expect(reopened.stats.compactions).toBe(1);
  });

  it('hands the mutations to the caller as it reads them, across pieces of a large snapshot', async () => {
    const dir = dirs.make();
    const journal = new FileJournal(dir);
    const catalog = await Catalog.open(journal, { compactionThreshold: 1 });
    // About 6 MB of snapshot: more than one piece of the reader.
    for (let i = 0; i < 30_000; i += 1000) await catalog.commit([insert(i, 1000)]);
    // The whole state in the snapshot: the first call may join a compaction already running.
    await journal.compact(() => catalog.snapshotMutations());
    await journal.compact(() => catalog.snapshotMutations());
    await catalog.close();
    expect(statSync(join(dir, snapshotFile(dir))).size).toBeGreaterThan(5 * 1024 * 1024);

    const applied: Mutation[] = [];
    const reopened = new FileJournal(dir);
    expect(await reopened.open((mutation) => applied.push(decodedMutation(mutation)))).toEqual([]);
    await reopened.close();
    const ids = applied.flatMap((m) =>
      m.op === 'insert' ? m.docs.map((d) => d._id as number) : [],
    );
    expect(ids).toEqual(Array.from({ length: 30_000 }, (_, i) => i));
    expect(applied.flatMap((m) => (m.op === 'insert' ? m.docs : [])).at(-1)).toEqual(doc(29_999));
  });
});
