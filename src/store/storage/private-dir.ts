import {
  chmodSync,
  closeSync,
  fchmodSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/** Mode of every file the store creates: read and write for its owner only. */
export const PRIVATE_FILE_MODE = 0o600;

/** Mode of the data directory: only its owner may list or enter it. */
export const PRIVATE_DIR_MODE = 0o700;

/** Group and other permission bits: what "private" takes away. */
const OPEN_BITS = 0o077;

/** A data directory that other local users could read, and that could not be tightened. */
export class DirectoryNotPrivateError extends Error {
  constructor(
    readonly dir: string,
    readonly path: string,
    mode: number,
    cause: unknown,
  ) {
    super(
      `${path} is open to other local users (mode ${formatMode(mode)}) and could not be made private ` +
        `(${(cause as Error).message}). The data directory holds every document; fix it with: chmod -R go-rwx ${shellQuote(dir)}`,
      { cause },
    );
    this.name = 'DirectoryNotPrivateError';
  }
}

/**
 * Makes `dir` a directory only its owner can use: created with mode 0700 when missing; when it
 * exists and is more open, it is chmod'ed to 0700, and every entry in it loses its group and
 * other bits (files written with 0644 before, by hand, or by an older version). Throws
 * DirectoryNotPrivateError when that fails (the directory or a file belongs to another user):
 * starting anyway would leave the data readable by every local user.
 *
 * Skipped on Windows, where POSIX modes do not describe who can read a file.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (process.platform === 'win32') return;
  const stat = statSync(dir);
  if (!stat.isDirectory()) throw new Error(`${dir} is not a directory`);
  tighten(dir, dir, stat.mode, PRIVATE_DIR_MODE);
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const entry = lstatSync(path);
    // A symbolic link has no mode of its own; what it points to is not ours to change.
    if (entry.isSymbolicLink()) continue;
    tighten(dir, path, entry.mode, entry.isDirectory() ? PRIVATE_DIR_MODE : entry.mode & 0o700);
  }
}

/**
 * Writes `text` to `path` as a file only its owner can read (0600, also when it existed with
 * another mode), fsynced. `exclusive`: fail with EEXIST rather than replace an existing file.
 */
export function writePrivateFileSync(
  path: string,
  text: string,
  options: { exclusive?: boolean } = {},
): void {
  const fd = openSync(path, options.exclusive ? 'wx' : 'w', PRIVATE_FILE_MODE);
  try {
    if (process.platform !== 'win32') fchmodSync(fd, PRIVATE_FILE_MODE);
    const bytes = Buffer.from(text);
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function tighten(dir: string, path: string, mode: number, to: number): void {
  if ((mode & OPEN_BITS) === 0) return;
  try {
    chmodSync(path, to);
  } catch (err) {
    throw new DirectoryNotPrivateError(dir, path, mode, err);
  }
}

const formatMode = (mode: number): string => `0${(mode & 0o777).toString(8).padStart(3, '0')}`;

const shellQuote = (text: string): string =>
  /^[\w./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
