import { promisify } from 'node:util';
import { deflate, inflate } from 'node:zlib';
import type { KeptWriteAnswer } from '../../models/idempotency-record.model';

const deflateAsync = promisify(deflate);
const inflateAsync = promisify(inflate);

/** A write's answer as sent: what a replay sends again. */
export interface WriteAnswer {
  status: number;
  contentType: string;
  body: Buffer;
}

/** Bodies from this size on are kept deflated: an import's answer lists every item it skipped. */
const DEFLATE_FROM_BYTES = 16 * 1024;

/**
 * The most a kept body may take once deflated: well under MongoDB's 16 MiB document limit. An
 * answer over it is kept as its status and a note saying so (`oversize`).
 */
export const MAX_KEPT_BODY_BYTES = 8 * 1024 * 1024;

/** The answer as a record keeps it; `oversize` makes the note for one too large to keep. */
export async function keepAnswer(
  answer: WriteAnswer,
  oversize: (status: number, bytes: number) => WriteAnswer,
): Promise<KeptWriteAnswer> {
  if (answer.body.length < DEFLATE_FROM_BYTES) return { ...answer, deflated: false };
  const body = await deflateAsync(answer.body);
  if (body.length <= MAX_KEPT_BODY_BYTES) return { ...answer, body, deflated: true };
  return { ...oversize(answer.status, answer.body.length), deflated: false };
}

/** The answer a record keeps, as it was sent. */
export async function keptAnswer(kept: KeptWriteAnswer): Promise<WriteAnswer> {
  // A lean read gives the driver's Binary; a hydrated one, a Buffer.
  const stored: unknown = kept.body;
  const body = Buffer.isBuffer(stored)
    ? stored
    : Buffer.from((stored as { buffer: Uint8Array }).buffer);
  return {
    status: kept.status,
    contentType: kept.contentType,
    body: kept.deflated ? await inflateAsync(body) : body,
  };
}
