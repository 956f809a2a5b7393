import {
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join, sep } from 'node:path';
import { PRIVATE_FILE_MODE } from './private-dir';

export const LOCK_FILE_NAME = 'mongod.lock';

/** Another live process holds the data directory. */
export class DirectoryInUseError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
    readonly lockFile: string,
  ) {
    super(`Data directory ${dir} is in use by process ${pid} (lock file ${lockFile})`);
    this.name = 'DirectoryInUseError';
  }
}

/** True if a process with this pid exists (EPERM: it exists but belongs to another user). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * An exclusive lock on a data directory: `mongod.lock` holding the owner's pid. Two processes
 * must never append to the same journal. A lock left by a dead process (crash, SIGKILL) is taken
 * over; a lock held by a live process is a DirectoryInUseError.
 *
 * The lock file appears with its content already in it: the pid is written to a private temp file
 * which is then hard-linked to `mongod.lock` (link fails with EEXIST exactly like O_EXCL). So a
 * reader never sees an empty lock file from a process that is still starting.
 */
export class DirLock {
  private released = false;

  private constructor(
    readonly path: string,
    private readonly ino: number,
  ) {}

  /** Takes the lock on `dir` (which must exist) or throws DirectoryInUseError. */
  static acquire(dir: string): DirLock {
    const path = join(dir, LOCK_FILE_NAME);
    // The message shows the directory as the caller named it (e.g. "./data/mongod.lock").
    const shown = `${dir.replace(/[\\/]+$/, '')}${sep}${LOCK_FILE_NAME}`;
    const temp = join(dir, `${LOCK_FILE_NAME}.${process.pid}.tmp`);
    const fd = openSync(temp, 'w', PRIVATE_FILE_MODE);
    try {
      writeSync(fd, `${process.pid}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      // Two attempts: the second follows the removal of a stale lock.
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          linkSync(temp, path);
          return new DirLock(path, statSync(path).ino);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        }
        const holder = readHolder(path);
        if (holder === undefined) continue; // removed meanwhile: try again
        if (holder.pid !== undefined && isAlive(holder.pid)) {
          throw new DirectoryInUseError(dir, holder.pid, shown);
        }
        // Stale: remove it only if it is still the same file we read (another process may have
        // taken it over between our read and now).
        try {
          const now = readHolder(path);
          if (now?.ino === holder.ino && now.pid === holder.pid) unlinkSync(path);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
      }
      const holder = readHolder(path);
      throw new DirectoryInUseError(dir, holder?.pid ?? -1, shown);
    } finally {
      unlinkSync(temp);
    }
  }

  /** Removes the lock file if it is still ours. Idempotent. */
  release(): void {
    if (this.released) return;
    this.released = true;
    try {
      // Inode numbers are reused at once, so the pid inside must match too.
      const holder = readHolder(this.path);
      if (holder?.ino === this.ino && holder.pid === process.pid) unlinkSync(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

/** The pid in a lock file (undefined if unreadable garbage), or undefined if there is no file. */
function readHolder(path: string): { pid: number | undefined; ino: number } | undefined {
  try {
    const ino = statSync(path).ino;
    const text = readFileSync(path, 'utf8').trim();
    const pid = /^\d+$/.test(text) ? Number(text) : undefined;
    return { pid: pid !== undefined && pid > 0 ? pid : undefined, ino };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
