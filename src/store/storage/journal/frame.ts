import { crc32 } from 'node:zlib';
import { CorruptJournalError } from './journal-error';

/**
 * On-disk framing shared by the log and the snapshot files.
 *
 * File header (16 bytes): magic (4 ASCII bytes: "PGJL" log, "PGJS" snapshot), format version
 * (u32 LE), generation (u32 LE, must match the file name), CRC-32 of the previous 12 bytes.
 *
 * Record: payload length (u32 LE), CRC-32 of those 4 length bytes, CRC-32 of the payload, payload.
 * The length has its own checksum so a flipped length is recognised as damage instead of being
 * trusted (a trusted bad length would make a corrupt middle record look like a torn tail).
 */
export const FORMAT_VERSION = 1;
export const FILE_HEADER_SIZE = 16;
export const RECORD_HEADER_SIZE = 12;

export type FileKind = 'log' | 'snapshot';

const MAGIC: Record<FileKind, string> = { log: 'PGJL', snapshot: 'PGJS' };

export function encodeFileHeader(kind: FileKind, generation: number): Buffer {
  const header = Buffer.alloc(FILE_HEADER_SIZE);
  header.write(MAGIC[kind], 0, 'latin1');
  header.writeUInt32LE(FORMAT_VERSION, 4);
  header.writeUInt32LE(generation, 8);
  header.writeUInt32LE(crc32(header.subarray(0, 12)), 12);
  return header;
}

/** Throws CorruptJournalError unless `buf` starts with the header of this kind and generation. */
export function checkFileHeader(
  buf: Buffer,
  file: string,
  kind: FileKind,
  generation: number,
): void {
  if (buf.length < FILE_HEADER_SIZE) {
    throw new CorruptJournalError(
      file,
      0,
      `file header needs ${FILE_HEADER_SIZE} bytes, file has ${buf.length}`,
    );
  }
  const magic = buf.toString('latin1', 0, 4);
  if (magic !== MAGIC[kind]) {
    throw new CorruptJournalError(
      file,
      0,
      `expected magic "${MAGIC[kind]}" (${kind}), found ${JSON.stringify(magic)}`,
    );
  }
  if (buf.readUInt32LE(12) !== crc32(buf.subarray(0, 12))) {
    throw new CorruptJournalError(file, 12, 'file header checksum mismatch');
  }
  const version = buf.readUInt32LE(4);
  if (version !== FORMAT_VERSION) {
    throw new CorruptJournalError(
      file,
      4,
      `expected format version ${FORMAT_VERSION}, found ${version}`,
    );
  }
  const found = buf.readUInt32LE(8);
  if (found !== generation) {
    throw new CorruptJournalError(
      file,
      8,
      `expected generation ${generation} (from the file name), found ${found}`,
    );
  }
}

export function encodeRecord(payload: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(RECORD_HEADER_SIZE + payload.length);
  frame.writeUInt32LE(payload.length, 0);
  frame.writeUInt32LE(crc32(frame.subarray(0, 4)), 4);
  frame.writeUInt32LE(crc32(payload), 8);
  payload.copy(frame, RECORD_HEADER_SIZE);
  return frame;
}

/** The payload of a valid record at `offset`, or why there is none. */
export function recordAt(buf: Buffer, offset: number): { payload: Buffer } | { problem: string } {
  if (offset + RECORD_HEADER_SIZE > buf.length) {
    return {
      problem: `record header needs ${RECORD_HEADER_SIZE} bytes, ${buf.length - offset} left`,
    };
  }
  const length = buf.readUInt32LE(offset);
  if (buf.readUInt32LE(offset + 4) !== crc32(buf.subarray(offset, offset + 4))) {
    return { problem: 'record length checksum mismatch' };
  }
  const start = offset + RECORD_HEADER_SIZE;
  if (start + length > buf.length) {
    return {
      problem: `record of ${length} bytes extends past the end of the file (${buf.length - start} left)`,
    };
  }
  const payload = buf.subarray(start, start + length);
  if (buf.readUInt32LE(offset + 8) !== crc32(payload))
    return { problem: 'record payload checksum mismatch' };
  return { payload };
}

/** True if any valid record starts somewhere in `buf` after `offset`. */
function validRecordAfter(buf: Buffer, offset: number): boolean {
  for (let at = offset + 1; at + RECORD_HEADER_SIZE <= buf.length; at++) {
    // Cheap plausibility first: the length must fit in what is left of the file.
    if (at + RECORD_HEADER_SIZE + buf.readUInt32LE(at) > buf.length) continue;
    if ('payload' in recordAt(buf, at)) return true;
  }
  return false;
}

export interface ScanResult {
  payloads: Buffer[];
  /** Offset just past the last valid record. */
  validEnd: number;
  /** Bytes after `validEnd` that were recognised as a torn tail (0 if the file ended cleanly). */
  tornBytes: number;
}

/**
 * Reads every record after the file header. A damaged record followed by nothing valid is a torn
 * tail (an interrupted append): it is reported, not returned. A damaged record followed by a valid
 * one means data in the middle is lost: that is a CorruptJournalError, never a silent skip.
 */
export function scanRecords(buf: Buffer, file: string): ScanResult {
  const payloads: Buffer[] = [];
  let offset = FILE_HEADER_SIZE;
  while (offset < buf.length) {
    const found = recordAt(buf, offset);
    if ('problem' in found) {
      if (validRecordAfter(buf, offset)) {
        throw new CorruptJournalError(
          file,
          offset,
          `${found.problem}, and valid records follow it`,
        );
      }
      return { payloads, validEnd: offset, tornBytes: buf.length - offset };
    }
    payloads.push(found.payload);
    offset += RECORD_HEADER_SIZE + found.payload.length;
  }
  return { payloads, validEnd: offset, tornBytes: 0 };
}
