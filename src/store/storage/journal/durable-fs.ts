// Internal to FileJournal: the few filesystem steps whose order and fsyncs make it crash-safe.
import { open, rename, unlink } from 'node:fs/promises';
import { PRIVATE_FILE_MODE } from '../private-dir';

/** fsync a directory, so a rename or create in it survives a power cut. */
export async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes `chunks` to a new file at `path` (replacing any; mode 0600 when created) and fsyncs it;
 * returns its size. A lazy `chunks` is drawn one chunk per write, so the file is never whole in
 * memory and the event loop runs between chunks.
 */
export async function writeFileSynced(path: string, chunks: Iterable<Buffer>): Promise<number> {
  const handle = await open(path, 'w', PRIVATE_FILE_MODE);
  let bytes = 0;
  try {
    for (const chunk of chunks) {
      let written = 0;
      while (written < chunk.length) {
        written += (await handle.write(chunk, written, chunk.length - written)).bytesWritten;
      }
      bytes += chunk.length;
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
  return bytes;
}

/** Atomically moves `from` to `to` and makes the move durable. */
export async function renameSynced(from: string, to: string, dir: string): Promise<void> {
  await rename(from, to);
  await fsyncDir(dir);
}

/** Removes a file if it exists. */
export async function removeIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/**
 * Groups small buffers into chunks of about `size` bytes so a file is written with few syscalls
 * without building one buffer as large as the file.
 */
export function* chunked(buffers: Iterable<Buffer>, size = 1 << 20): Generator<Buffer> {
  let group: Buffer[] = [];
  let bytes = 0;
  for (const buffer of buffers) {
    group.push(buffer);
    bytes += buffer.length;
    if (bytes >= size) {
      yield Buffer.concat(group, bytes);
      group = [];
      bytes = 0;
    }
  }
  if (group.length > 0) yield Buffer.concat(group, bytes);
}
