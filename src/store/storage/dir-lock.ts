import {
  closeSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join, sep } from 'node:path';
import { tryLock, unlock } from 'fs-native-extensions';
import { PRIVATE_FILE_MODE } from './private-dir';

export const LOCK_FILE_NAME = 'mongod.lock';

/** Another process, or another store in this one, holds the data directory. */
export class DirectoryInUseError extends Error {
  constructor(
    readonly dir: string,
    /** The holder's pid as its lock file says; -1 while it has not written it yet. */
    readonly pid: number,
    readonly lockFile: string,
  ) {
    super(
      `Data directory ${dir} is in use by ${pid > 0 ? `process ${pid}` : 'another process'} (lock file ${lockFile})`,
    );
    this.name = 'DirectoryInUseError';
  }
}

/**
 * An exclusive lock on a data directory: two stores must never append to the same journal.
 *
 * The lock is the operating system's, on `mongod.lock` (fs-native-extensions: an open file
 * description lock on Linux, `flock` on macOS, `LockFileEx` on Windows). The kernel releases it
 * when the holder's descriptor closes, which happens as a process dies, before its parent has
 * reaped it: a process just killed never holds the directory, and a pid reused by an unrelated
 * process never looks like a holder. The lock belongs to the open file, not to the process, so a
 * second store in the same process is refused too. The file carries the holder's pid only to name
 * it in the refusal.
 */
export class DirLock {
  private released = false;

  private constructor(
    readonly path: string,
    private readonly fd: number,
  ) {}

  /** Takes the lock on `dir` (which must exist) or throws DirectoryInUseError. */
  static acquire(dir: string): DirLock {
    const path = join(dir, LOCK_FILE_NAME);
    // The message shows the directory as the caller named it (e.g. "./data/mongod.lock").
    const shown = `${dir.replace(/[\\/]+$/, '')}${sep}${LOCK_FILE_NAME}`;
    // A few attempts: each lost one is a holder that removed the file as it let go.
    for (let attempt = 0; attempt < 3; attempt++) {
      const fd = openSync(path, 'a+', PRIVATE_FILE_MODE);
      let kept = false;
      try {
        if (!tryLock(fd)) throw new DirectoryInUseError(dir, holderPid(path) ?? -1, shown);
        // The holder before may have removed the file after this one opened it: the lock is then
        // on a file nobody else can find, and the path has to be opened again.
        if (!samePath(fd, path)) continue;
        ftruncateSync(fd, 0);
        writeSync(fd, `${process.pid}\n`);
        fsyncSync(fd);
        kept = true;
        return new DirLock(path, fd);
      } finally {
        // Closing the descriptor lets go of its lock.
        if (!kept) closeSync(fd);
      }
    }
    throw new DirectoryInUseError(dir, holderPid(path) ?? -1, shown);
  }

  /** Removes the lock file and lets go of the lock. Idempotent. */
  release(): void {
    if (this.released) return;
    this.released = true;
    try {
      // Removed while still held, so no other process can take a lock on a file about to vanish
      // without seeing it vanish (acquire checks the path); removed only if it is still ours.
      if (samePath(this.fd, this.path)) unlinkSync(this.path);
    } finally {
      unlock(this.fd);
      closeSync(this.fd);
    }
  }
}

/** Whether `path` still names the file open as `fd`. */
function samePath(fd: number, path: string): boolean {
  const open = fstatSync(fd);
  try {
    const named = statSync(path);
    return named.ino === open.ino && named.dev === open.dev;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** The pid a lock file names, for the refusal; undefined when it names none or cannot be read. */
function holderPid(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (err) {
    // Gone meanwhile, or (Windows) a region the holder's lock keeps from being read.
    if (typeof (err as NodeJS.ErrnoException).code === 'string') return undefined;
    throw err;
  }
  return /^\d+$/.test(text) && Number(text) > 0 ? Number(text) : undefined;
}
