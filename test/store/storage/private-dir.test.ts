import { chmodSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FileJournal } from '../../../src/store/storage/file-journal';
import { ensurePrivateDir, writePrivateFileSync } from '../../../src/store/storage/private-dir';
import { tempDirs } from '../durability/journal-fixtures';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const mode = (path: string): number => statSync(path).mode & 0o777;

/** Runs `body` with the process umask at `mask` (000 shows that modes are set, not inherited). */
async function withUmask<T>(mask: number, body: () => Promise<T>): Promise<T> {
  const saved = process.umask(mask);
  try {
    return await body();
  } finally {
    process.umask(saved);
  }
}

describe('ensurePrivateDir', () => {
  it('creates a missing directory, parents included, with mode 0700', async () => {
    const dir = join(dirs.make(), 'a', 'data');
    await withUmask(0, async () => ensurePrivateDir(dir));
    expect(mode(dir)).toBe(0o700);
  });

  it('tightens an open directory and what is in it, and leaves a symbolic link alone', () => {
    const dir = dirs.make();
    chmodSync(dir, 0o755);
    const modes: Record<string, number> = {
      'journal-0000000000.log': 0o644,
      'admin-token': 0o666,
      private: 0o600,
      'read-only': 0o444,
    };
    for (const [name, m] of Object.entries(modes)) {
      writeFileSync(join(dir, name), 'x');
      chmodSync(join(dir, name), m);
    }
    mkdirSync(join(dir, 'sub'));
    chmodSync(join(dir, 'sub'), 0o755);
    const outside = join(dirs.make(), 'target');
    writeFileSync(outside, 'x');
    chmodSync(outside, 0o644);
    symlinkSync(outside, join(dir, 'link'));

    ensurePrivateDir(dir);

    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'journal-0000000000.log'))).toBe(0o600);
    expect(mode(join(dir, 'admin-token'))).toBe(0o600);
    expect(mode(join(dir, 'private'))).toBe(0o600);
    expect(mode(join(dir, 'read-only'))).toBe(0o400);
    expect(mode(join(dir, 'sub'))).toBe(0o700);
    expect(mode(outside)).toBe(0o644);
  });
});

describe('writePrivateFileSync', () => {
  it('creates 0600 files, makes an existing open file 0600, and refuses to replace one when exclusive', async () => {
    const dir = dirs.make();
    const path = join(dir, 'secret');
    await withUmask(0, async () => writePrivateFileSync(path, 'one'));
    expect(mode(path)).toBe(0o600);
    chmodSync(path, 0o644);
    writePrivateFileSync(path, 'two');
    expect(mode(path)).toBe(0o600);
    expect(() => writePrivateFileSync(path, 'three', { exclusive: true })).toThrow(/EEXIST/);
  });
});

describe('FileJournal files', () => {
  it('are 0600 in a 0700 directory even with umask 000, through writes and a compaction', async () => {
    const dir = join(dirs.make(), 'data');
    await withUmask(0, async () => {
      const journal = new FileJournal(dir);
      await journal.open();
      journal.append([{ op: 'insert', ns: 'db.c', docs: [{ _id: 1, secret: 'target' }] }]);
      await journal.sync();
      await journal.compact(() => [
        { op: 'insert', ns: 'db.c', docs: [{ _id: 1, secret: 'target' }] },
      ]);
      journal.append([{ op: 'insert', ns: 'db.c', docs: [{ _id: 2 }] }]);
      await journal.sync();
      expect(readdirSync(dir).sort()).toEqual([
        'journal-0000000001.log',
        'mongod.lock',
        'snapshot-0000000001.bson',
      ]);
      for (const name of readdirSync(dir))
        expect([name, mode(join(dir, name))]).toEqual([name, 0o600]);
      await journal.close();
    });
    expect(mode(dir)).toBe(0o700);
  });
});
