import { HEADER_SIZE, MAX_MESSAGE_SIZE } from './op-codes';
import { WireError } from './wire-error';

/**
 * Cuts a TCP byte stream into whole wire-protocol frames using the length in each header.
 * Chunks are kept in a list and only concatenated when a frame is complete, so a large message
 * arriving in many small chunks costs one copy, not one per chunk.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /** Adds received bytes; returns the frames now complete (possibly none). Throws WireError. */
  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: Buffer[] = [];
    while (this.buffered >= 4) {
      const length = this.peekLength();
      if (length < HEADER_SIZE || length > MAX_MESSAGE_SIZE) {
        throw new WireError(
          `invalid message length ${length}: expected ${HEADER_SIZE}..${MAX_MESSAGE_SIZE} bytes`,
        );
      }
      if (this.buffered < length) break;
      frames.push(this.take(length));
    }
    return frames;
  }

  private peekLength(): number {
    const first = this.chunks[0];
    if (first.length >= 4) return first.readInt32LE(0);
    const head = Buffer.concat(this.chunks, Math.min(this.buffered, 4));
    this.chunks = [Buffer.concat(this.chunks)];
    return head.readInt32LE(0);
  }

  private take(length: number): Buffer {
    const all =
      this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.buffered);
    const frame = all.subarray(0, length);
    const rest = all.subarray(length);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return frame;
  }
}
