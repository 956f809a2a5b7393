import { open, readFile } from 'node:fs/promises';
import { CorruptJournalError } from './journal-error';
import {
  checkFileHeader,
  FILE_HEADER_SIZE,
  RECORD_HEADER_SIZE,
  recordAt,
  scanRecords,
  type FileKind,
} from './frame';

/** Bytes read from the file at a time (more when one record is larger). */
const READ_SIZE = 4 * 1024 * 1024;

/**
 * The payloads of a file that must be intact to its end (a snapshot), read a piece at a time so
 * that loading holds about one piece in memory besides what is decoded, not the whole file. Any
 * damage is corruption: the whole file is then scanned once to name the offset and the kind of
 * damage exactly as `scanRecords` names them.
 */
export async function* readIntactRecords(
  file: string,
  kind: FileKind,
  generation: number,
): AsyncGenerator<Buffer> {
  const handle = await open(file, 'r');
  try {
    let buf = Buffer.alloc(0);
    let offset = 0;
    let position = 0;
    let ended = false;
    const size = (await handle.stat()).size;
    /** Makes at least `bytes` unread bytes available unless the file ends first. */
    const fill = async (bytes: number): Promise<void> => {
      while (!ended && buf.length - offset < bytes) {
        const chunk = Buffer.allocUnsafe(Math.max(READ_SIZE, bytes - (buf.length - offset)));
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
        position += bytesRead;
        if (bytesRead === 0) ended = true;
        buf = Buffer.concat([buf.subarray(offset), chunk.subarray(0, bytesRead)]);
        offset = 0;
      }
    };
    await fill(FILE_HEADER_SIZE);
    checkFileHeader(
      buf.subarray(0, Math.min(buf.length, FILE_HEADER_SIZE)),
      file,
      kind,
      generation,
    );
    offset = FILE_HEADER_SIZE;
    for (;;) {
      await fill(RECORD_HEADER_SIZE);
      if (buf.length === offset) return;
      // An unverified length that reaches past the end of the file is damage, not a read size.
      const length = buf.length - offset >= 4 ? buf.readUInt32LE(offset) : 0;
      if (RECORD_HEADER_SIZE + length > buf.length - offset + (size - position)) break;
      await fill(RECORD_HEADER_SIZE + length);
      const found = recordAt(buf, offset);
      if ('problem' in found) break;
      offset += RECORD_HEADER_SIZE + found.payload.length;
      yield found.payload;
    }
  } finally {
    await handle.close();
  }
  throw damageIn(file, await readFile(file));
}

function damageIn(file: string, whole: Buffer): CorruptJournalError {
  // Throws itself when valid records follow the damage (data lost in the middle).
  const scan = scanRecords(whole, file);
  return new CorruptJournalError(
    file,
    scan.validEnd,
    `${scan.tornBytes} damaged bytes at the end of a snapshot`,
  );
}
