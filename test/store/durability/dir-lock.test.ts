import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DirectoryInUseError, DirLock } from '../../../src/store/storage/dir-lock';
import { FileJournal } from '../../../src/store/storage/file-journal';
import { tempDirs } from './journal-fixtures';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid as number;

const ROOT = join(__dirname, '../../..');

/**
 * Another process holding `dir` through DirLock, started by a shell that then becomes `sleep`:
 * `sleep` never reaps its children, so once killed the holder stays a zombie until `stop()`.
 */
async function lockHolder(dir: string): Promise<{ pid: number; stop(): void }> {
  const script =
    "const { DirLock } = require('./src/store/storage/dir-lock');" +
    'DirLock.acquire(process.env.LOCK_DIR); console.log(process.pid); setInterval(() => {}, 60000);';
  const shell = spawn(
    'sh',
    ['-c', '"$NODE" -r ./test/helpers/ts-register.js -e "$SCRIPT" & exec sleep 60'],
    {
      cwd: ROOT,
      env: { ...process.env, NODE: process.execPath, SCRIPT: script, LOCK_DIR: dir },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const pid = await new Promise<number>((resolve, reject) => {
    shell.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    shell.once('exit', (code) => reject(new Error(`the lock holder exited (${code})`)));
  });
  return {
    pid,
    stop() {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
      shell.kill('SIGKILL');
    },
  };
}

/** The state letter of /proc/<pid>/stat (`Z`: a zombie); undefined when there is no such process. */
function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(condition()).toBe(true);
}

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

  it('refuses a lock held by another live process, naming it', async () => {
    const dir = dirs.make();
    const holder = await lockHolder(dir);
    try {
      await expect(new FileJournal(dir).open()).rejects.toThrow(
        `Data directory ${dir} is in use by process ${holder.pid} (lock file ${dir}/mongod.lock)`,
      );
      expect(readFileSync(join(dir, 'mongod.lock'), 'utf8')).toBe(`${holder.pid}\n`);
    } finally {
      holder.stop();
    }
  });

  it('takes the directory of a holder killed a moment ago, before its parent has reaped it', async () => {
    const dir = dirs.make();
    const holder = await lockHolder(dir);
    try {
      process.kill(holder.pid, 'SIGKILL');
      // The leader is a zombie once it exits; its other threads (and the open files they share,
      // the lock's among them) may take a moment longer to go.
      await waitFor(
        () =>
          processState(holder.pid) === 'Z' && readdirSync(`/proc/${holder.pid}/task`).length === 1,
      );
      // A zombie: its pid still answers signal 0, and its lock file still names it.
      expect(() => process.kill(holder.pid, 0)).not.toThrow();
      expect(readFileSync(join(dir, 'mongod.lock'), 'utf8')).toBe(`${holder.pid}\n`);
      const journal = new FileJournal(dir);
      await journal.open();
      expect(readFileSync(join(dir, 'mongod.lock'), 'utf8')).toBe(`${process.pid}\n`);
      await journal.close();
    } finally {
      holder.stop();
    }
  });

  it('ignores a lock file naming a live process that holds no lock', async () => {
    const dir = dirs.make();
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], {
      stdio: 'ignore',
    });
    try {
      writeFileSync(join(dir, 'mongod.lock'), `${other.pid}\n`);
      const lock = DirLock.acquire(dir);
      expect(readFileSync(join(dir, 'mongod.lock'), 'utf8')).toBe(`${process.pid}\n`);
      lock.release();
    } finally {
      other.kill('SIGKILL');
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
