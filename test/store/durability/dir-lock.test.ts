import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DirectoryInUseError, DirLock } from '../../../src/store/storage/dir-lock';
import { FileJournal } from '../../../src/store/storage/file-journal';
import { tempDirs } from './journal-fixtures';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid as number;

describe('data directory lock', () => {
  it('refuses a second journal on a directory in use, naming the holder', async () => {
    const dir = dirs.make();
    const first = new FileJournal(dir);
    await first.open();
    const second = new FileJournal(dir);
    await expect(second.open()).rejects.toThrow(
      new DirectoryInUseError(dir, process.pid, `${dir}/mongod.lock`),
    );
    await expect(second.open()).rejects.toThrow(
      `Data directory ${dir} is in use by process ${process.pid} (lock file ${dir}/mongod.lock)`,
    );
    await first.close();
    expect(existsSync(join(dir, 'mongod.lock'))).toBe(false);
  });

  it('shows the directory as the caller named it', () => {
    const dir = dirs.make();
    const lock = DirLock.acquire(dir);
    const shown = `./${relative(process.cwd(), dir)}`;
    expect(() => DirLock.acquire(shown)).toThrow(
      `Data directory ${shown} is in use by process ${process.pid} (lock file ${shown}/mongod.lock)`,
    );
    lock.release();
  });

  it('refuses a lock held by another live process', async () => {
    const dir = dirs.make();
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], {
      stdio: 'ignore',
    });
    try {
      writeFileSync(join(dir, 'mongod.lock'), `${holder.pid}\n`);
      await expect(new FileJournal(dir).open()).rejects.toThrow(
        `is in use by process ${holder.pid}`,
      );
      expect(readFileSync(join(dir, 'mongod.lock'), 'utf8')).toBe(`${holder.pid}\n`);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('takes over a stale lock left by a dead process', async () => {
    const dir = dirs.make();
    writeFileSync(join(dir, 'mongod.lock'), `${deadPid()}\n`);
    const journal = new FileJournal(dir);
    await journal.open();
    expect(readFileSync(join(dir, 'mongod.lock'), 'utf8')).toBe(`${process.pid}\n`);
    await journal.close();
    expect(existsSync(join(dir, 'mongod.lock'))).toBe(false);
  });

  it('takes over a lock file without a pid in it', () => {
    const dir = dirs.make();
    writeFileSync(join(dir, 'mongod.lock'), 'garbage');
    const lock = DirLock.acquire(dir);
    expect(readFileSync(join(dir, 'mongod.lock'), 'utf8')).toBe(`${process.pid}\n`);
    lock.release();
  });

  it('does not remove a lock file that is no longer its own', () => {
    const dir = dirs.make();
    const lock = DirLock.acquire(dir);
    const path = join(dir, 'mongod.lock');
    unlinkSync(path);
    writeFileSync(path, '999999\n'); // replaced by someone else
    lock.release();
    expect(readFileSync(path, 'utf8')).toBe('999999\n');
  });
});

describe('data directory lock at the server level', () => {
  it('refuses a second server on the same data directory and leaves the first one serving', async () => {
    const { EmbeddedMongoServer } = await import('../../../src/store/server');
    const { MongoClient } = await import('mongodb');
    const dir = dirs.make();
    const first = await EmbeddedMongoServer.start({ dataDir: dir });
    try {
      await expect(EmbeddedMongoServer.start({ dataDir: dir })).rejects.toThrow(
        `Data directory ${dir} is in use by process ${process.pid} (lock file ${dir}/mongod.lock)`,
      );
      const client = new MongoClient(first.uri);
      await client
        .db('app')
        .collection('c')
        .insertOne({ _id: 1 } as never);
      expect(await client.db('app').collection('c').findOne({})).toEqual({ _id: 1 });
      await client.close();
    } finally {
      await first.stop();
    }
    expect(existsSync(join(dir, 'mongod.lock'))).toBe(false);
  });
});
