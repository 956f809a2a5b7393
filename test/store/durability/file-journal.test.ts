import { appendFileSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FileJournal } from '../../../src/store/storage/file-journal';
import {
  CorruptJournalError,
  JournalStateError,
} from '../../../src/store/storage/journal/journal-error';
import { FILE_HEADER_SIZE, RECORD_HEADER_SIZE } from '../../../src/store/storage/journal/frame';
import type { Mutation } from '../../../src/store/storage/mutation';
import { bsonBytes, everyKindBatch, richDoc, tempDirs } from './journal-fixtures';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const LOG0 = 'journal-0000000000.log';

async function reopen(dir: string): Promise<{ journal: FileJournal; mutations: Mutation[] }> {
  const journal = new FileJournal(dir);
  const mutations = await journal.open();
  return { journal, mutations };
}

/** Opens, reads everything back and closes again. */
async function readBack(dir: string): Promise<Mutation[]> {
  const { journal, mutations } = await reopen(dir);
  await journal.close();
  return mutations;
}

const insert = (i: number): Mutation => ({
  op: 'insert',
  ns: 'app.t',
  docs: [{ _id: i, v: `value-${i}` }],
});

describe('FileJournal', () => {
  it('creates the directory and starts empty', async () => {
    const dir = join(dirs.make(), 'nested', 'data');
    const { journal, mutations } = await reopen(dir);
    expect(mutations).toEqual([]);
    expect(journal.logBytes).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([LOG0, 'mongod.lock']);
    await journal.close();
    expect(readdirSync(dir)).toEqual([LOG0]);
  });

  it('round-trips every mutation kind and BSON type exactly', async () => {
    const dir = dirs.make();
    const batch = everyKindBatch();
    const first = await reopen(dir);
    first.journal.append(batch);
    first.journal.append([insert(1)]);
    await first.journal.sync();
    expect(first.journal.logBytes).toBeGreaterThan(0);
    await first.journal.close();

    const second = await reopen(dir);
    const expected = [...batch, insert(1)];
    expect(second.mutations).toEqual(expected);
    expect(bsonBytes(second.mutations).equals(bsonBytes(expected))).toBe(true);
    // Types survive as the wire layer produces them, not merely as equal-looking values.
    const doc = (second.mutations[2] as Extract<Mutation, { op: 'insert' }>).docs[0];
    expect(Object.is(doc.negZero, -0)).toBe(true);
    expect(doc.big._bsontype).toBe('Long');
    expect(doc.dec._bsontype).toBe('Decimal128');
    expect(doc.bin._bsontype).toBe('Binary');
    expect(doc.when).toBeInstanceOf(Date);
    expect('nul' in doc && doc.nul === null).toBe(true);
    expect('missing' in doc).toBe(false);
    await second.journal.close();
  });

  it('serialises a batch at append time, not at flush time', async () => {
    const dir = dirs.make();
    const { journal } = await reopen(dir);
    const doc = { _id: 1, v: 'before' };
    journal.append([{ op: 'insert', ns: 'app.t', docs: [doc] }]);
    doc.v = 'after';
    await journal.sync();
    await journal.close();
    const { journal: again, mutations } = await reopen(dir);
    expect(mutations).toEqual([{ op: 'insert', ns: 'app.t', docs: [{ _id: 1, v: 'before' }] }]);
    await again.close();
  });

  it('ignores a torn last record, cuts it off, and appends cleanly after it', async () => {
    const dir = dirs.make();
    const { journal } = await reopen(dir);
    journal.append([insert(1)]);
    journal.append([insert(2)]);
    await journal.sync();
    await journal.close();
    const log = join(dir, LOG0);
    const cleanSize = statSync(log).size;
    // The first 20 bytes of a further record: an append interrupted by a crash.
    const { journal: j3 } = await reopen(dirs.make());
    j3.append([insert(3)]);
    await j3.sync();
    const third = readFileSync(join(j3.dir, LOG0)).subarray(FILE_HEADER_SIZE);
    await j3.close();
    appendFileSync(log, third.subarray(0, 20));

    const again = await reopen(dir);
    expect(again.mutations).toEqual([insert(1), insert(2)]);
    expect(statSync(log).size).toBe(cleanSize);
    again.journal.append([insert(4)]);
    await again.journal.sync();
    await again.journal.close();
    expect(await readBack(dir)).toEqual([insert(1), insert(2), insert(4)]);
  });

  it('ignores a last record whose payload checksum fails', async () => {
    const dir = dirs.make();
    const { journal } = await reopen(dir);
    journal.append([insert(1)]);
    journal.append([insert(2)]);
    await journal.sync();
    await journal.close();
    const log = join(dir, LOG0);
    const bytes = readFileSync(log);
    bytes[bytes.length - 3] ^= 0xff;
    writeFileSync(log, bytes);
    const again = await reopen(dir);
    expect(again.mutations).toEqual([insert(1)]);
    await again.journal.close();
  });

  it('refuses a log whose middle record is corrupt, naming the file and offset', async () => {
    const dir = dirs.make();
    const { journal } = await reopen(dir);
    for (let i = 1; i <= 3; i++) journal.append([insert(i)]);
    await journal.sync();
    await journal.close();
    const log = join(dir, LOG0);
    const bytes = readFileSync(log);
    bytes[FILE_HEADER_SIZE + RECORD_HEADER_SIZE + 5] ^= 0x01; // inside record 1's payload
    writeFileSync(log, bytes);

    const broken = new FileJournal(dir);
    const opening = broken.open();
    await expect(opening).rejects.toThrow(CorruptJournalError);
    await expect(opening).rejects.toThrow(
      `Corrupt journal file ${log} at byte ${FILE_HEADER_SIZE}: record payload checksum mismatch, and valid records follow it`,
    );
    // The failed open released the directory: a fixed file can be opened at once.
    writeFileSync(log, bytes.subarray(0, FILE_HEADER_SIZE));
    const fixed = await reopen(dir);
    expect(fixed.mutations).toEqual([]);
    await fixed.journal.close();
  });

  it('refuses a corrupted length field in the middle rather than treating it as a torn tail', async () => {
    const dir = dirs.make();
    const { journal } = await reopen(dir);
    for (let i = 1; i <= 3; i++) journal.append([insert(i)]);
    await journal.sync();
    await journal.close();
    const log = join(dir, LOG0);
    const bytes = readFileSync(log);
    bytes[FILE_HEADER_SIZE + 3] = 0x7f; // record 1's length becomes huge
    writeFileSync(log, bytes);
    await expect(new FileJournal(dir).open()).rejects.toThrow(
      'record length checksum mismatch, and valid records follow it',
    );
  });

  it('refuses a file that is not a journal', async () => {
    const dir = dirs.make();
    writeFileSync(join(dir, LOG0), 'hello, this is not a journal');
    await expect(new FileJournal(dir).open()).rejects.toThrow(
      `Corrupt journal file ${join(dir, LOG0)} at byte 0: expected magic "PGJL" (log), found "hell"`,
    );
  });

  it('acknowledges many concurrent writers with few fsyncs (group commit)', async () => {
    const dir = dirs.make();
    const { journal } = await reopen(dir);
    const writers = Array.from({ length: 200 }, async (_, i) => {
      journal.append([insert(i)]);
      await journal.sync();
    });
    await Promise.all(writers);
    const { records, syncs } = journal.stats;
    expect(records).toBe(200);
    // The first sync flushes what is queued; everything else waits for one more round.
    expect(syncs).toBeLessThanOrEqual(2);
    await journal.close();
    expect(await readBack(dir)).toHaveLength(200);
  });

  it('resolves sync only after the records appended before it are durable', async () => {
    const dir = dirs.make();
    const { journal } = await reopen(dir);
    journal.append([insert(1)]);
    const first = journal.sync();
    journal.append([insert(2)]); // queued while the first flush may be in flight
    const second = journal.sync();
    await first;
    await second;
    expect(journal.stats.records).toBe(2);
    await journal.close();
    expect(await readBack(dir)).toEqual([insert(1), insert(2)]);
  });

  it('states what was expected when used before open or after close', async () => {
    const journal = new FileJournal(dirs.make());
    expect(() => journal.append([insert(1)])).toThrow(
      new JournalStateError('append() expects an open journal; this one is new'),
    );
    await journal.open();
    await journal.close();
    expect(() => journal.sync()).toThrow('sync() expects an open journal; this one is closed');
    await expect(journal.open()).rejects.toThrow(
      'open() expects a new journal; this one is closed',
    );
  });

  it('keeps a large insert batch beyond the 16 MB BSON document limit', async () => {
    const dir = dirs.make();
    const { journal } = await reopen(dir);
    const filler = 'x'.repeat(1024);
    const docs = Array.from({ length: 20_000 }, (_, i) => ({ _id: i, filler }));
    journal.append([{ op: 'insert', ns: 'app.big', docs }]);
    await journal.sync();
    await journal.close();
    const again = await reopen(dir);
    expect((again.mutations[0] as Extract<Mutation, { op: 'insert' }>).docs).toHaveLength(20_000);
    await again.journal.close();
  });

  it('keeps rich documents intact across many batches', async () => {
    const dir = dirs.make();
    const { journal } = await reopen(dir);
    const expected: Mutation[] = [];
    for (let i = 0; i < 50; i++) {
      const m: Mutation = { op: 'insert', ns: 'app.rich', docs: [richDoc(i)] };
      expected.push(m);
      journal.append([m]);
    }
    await journal.sync();
    await journal.close();
    const again = await reopen(dir);
    expect(bsonBytes(again.mutations).equals(bsonBytes(expected))).toBe(true);
    await again.journal.close();
  });
});
