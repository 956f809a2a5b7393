/**
 * Internal: rewrites the request line `DEL <target> HTTP/1.x` to `DELETE <target> HTTP/1.x` on a
 * raw HTTP/1 byte stream, so Node's parser (llhttp, which rejects unknown methods) accepts the
 * method the original API document uses. It follows request boundaries (Content-Length and
 * chunked bodies) so only request heads are ever looked at: pipelined requests are each handled,
 * and body bytes (even a body containing "DEL ") pass through untouched. A head's bytes are passed
 * on as they arrive (only a start that may still become "DEL " waits for its next byte), so the
 * parser sees a request begin when it does and its headers time-out applies. On anything it
 * cannot frame (a malformed head, an upgrade), it stops interpreting and passes bytes through,
 * leaving the verdict to the real parser.
 */

type State =
  | { kind: 'head' }
  | { kind: 'fixed'; remaining: number }
  | { kind: 'chunk-size' }
  | { kind: 'chunk-data'; remaining: number }
  | { kind: 'trailers' }
  | { kind: 'passthrough' };

/** A head larger than this is not ours to frame; llhttp answers 431 on its own. */
const MAX_HEAD_BYTES = 64 * 1024;
const MAX_CHUNK_LINE_BYTES = 4 * 1024;
const DEL = Buffer.from('DEL ');
const DELETE = Buffer.from('DELETE ');

function startsWithDel(head: Buffer): boolean {
  return (
    head.length >= 4 && head[0] === 0x44 && head[1] === 0x45 && head[2] === 0x4c && head[3] === 0x20
  );
}

/**
 * A line starting with this byte may name one of the headers bodyStateAfter looks for
 * (content-length, transfer-encoding, upgrade: c, t, u in either case; blank, as names are trimmed).
 */
function mayNameBodyHeader(byte: number): boolean {
  const lower = byte | 0x20;
  return lower === 0x63 || lower === 0x74 || lower === 0x75 || byte === 0x20 || byte === 0x09;
}

/**
 * Where a head ends (just past its empty line: CRLF CRLF, or LF LF as llhttp also accepts), or -1
 * when it is not all there yet; and whether any of its lines may name a header bodyStateAfter looks
 * for. One pass over the bytes from `from`, where an earlier scan of the same head stopped.
 */
function scanHead(buffer: Buffer, from: number): { end: number; mayHaveBody: boolean } {
  let mayHaveBody = false;
  for (
    let i = buffer.indexOf(0x0a, from);
    i !== -1 && i < buffer.length;
    i = buffer.indexOf(0x0a, i + 1)
  ) {
    const next = buffer[i + 1];
    if (next === 0x0a) return { end: i + 2, mayHaveBody };
    if (next === 0x0d && buffer[i - 1] === 0x0d && buffer[i + 2] === 0x0a)
      return { end: i + 3, mayHaveBody };
    if (next !== undefined && mayNameBodyHeader(next)) mayHaveBody = true;
  }
  return { end: -1, mayHaveBody };
}

/** Whether `head`, shorter than "DEL ", may still become it. */
function mayBecomeDel(head: Buffer): boolean {
  return head.length < DEL.length && DEL.subarray(0, head.length).equals(head);
}

export class DelMethodRewriter {
  private state: State = { kind: 'head' };
  /** Bytes kept for framing: the current head so far, or an unfinished chunk-size or trailer line. */
  private pending: Buffer = Buffer.alloc(0);
  /** How many bytes of the current head (in `pending`) were already passed on. */
  private headPassed = 0;
  /** Where the scan of the current head may resume, and whether it saw a body header yet. */
  private headScanned = 0;
  private headMayHaveBody = false;

  /** Feeds bytes received from the client; returns the bytes to hand to the HTTP parser. */
  push(chunk: Buffer): Buffer[] {
    const out: Buffer[] = [];
    let input = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    while (input.length > 0) {
      const state = this.state;
      switch (state.kind) {
        case 'passthrough':
          out.push(input);
          return out;
        case 'fixed':
        case 'chunk-data': {
          const take = Math.min(state.remaining, input.length);
          out.push(input.subarray(0, take));
          input = input.subarray(take);
          state.remaining -= take;
          if (state.remaining === 0)
            this.state = state.kind === 'fixed' ? { kind: 'head' } : { kind: 'chunk-size' };
          break;
        }
        case 'head': {
          // Empty lines between pipelined requests are allowed; pass them on as they are.
          let skip = 0;
          while (skip < input.length && (input[skip] === 0x0d || input[skip] === 0x0a)) skip += 1;
          if (skip > 0) {
            out.push(input.subarray(0, skip));
            input = input.subarray(skip);
            continue;
          }
          if (this.headPassed === 0) {
            if (mayBecomeDel(input)) {
              this.pending = input;
              return out;
            }
            if (startsWithDel(input)) {
              out.push(DELETE);
              this.headPassed = DEL.length;
            }
          }
          // A line end may straddle the previous scan's stop: resume a few bytes before it.
          const { end, mayHaveBody } = scanHead(input, Math.max(0, this.headScanned - 3));
          const headMayHaveBody = this.headMayHaveBody || mayHaveBody;
          if (end === -1) {
            if (input.length > MAX_HEAD_BYTES)
              return this.passthrough(out, input.subarray(this.headPassed));
            if (input.length > this.headPassed) out.push(input.subarray(this.headPassed));
            this.pending = input;
            this.headPassed = input.length;
            this.headScanned = input.length;
            this.headMayHaveBody = headMayHaveBody;
            return out;
          }
          const head = input.subarray(0, end);
          if (end > this.headPassed) out.push(head.subarray(this.headPassed));
          input = input.subarray(end);
          this.headPassed = 0;
          this.headScanned = 0;
          this.headMayHaveBody = false;
          this.state = headMayHaveBody
            ? this.bodyStateAfter(head)
            : head.toString('latin1', 0, 8) === 'CONNECT '
              ? { kind: 'passthrough' }
              : { kind: 'head' };
          break;
        }
        case 'chunk-size': {
          const lineEnd = input.indexOf('\n');
          if (lineEnd === -1) {
            if (input.length > MAX_CHUNK_LINE_BYTES) return this.passthrough(out, input);
            this.pending = input;
            return out;
          }
          const line = input.subarray(0, lineEnd + 1);
          const size = /^([0-9A-Fa-f]{1,15})[ \t]*(;[^\r\n]*)?\r?\n$/.exec(line.toString('latin1'));
          out.push(line);
          input = input.subarray(lineEnd + 1);
          if (!size) return this.passthrough(out, input);
          const length = parseInt(size[1], 16);
          // The data is followed by CRLF, which we pass along with it.
          this.state =
            length === 0 ? { kind: 'trailers' } : { kind: 'chunk-data', remaining: length + 2 };
          break;
        }
        case 'trailers': {
          const lineEnd = input.indexOf('\n');
          if (lineEnd === -1) {
            if (input.length > MAX_HEAD_BYTES) return this.passthrough(out, input);
            this.pending = input;
            return out;
          }
          const line = input.subarray(0, lineEnd + 1);
          out.push(line);
          input = input.subarray(lineEnd + 1);
          if (line.length <= 2 && line.toString('latin1').trim() === '')
            this.state = { kind: 'head' };
          break;
        }
        default:
          return assertNever(state);
      }
    }
    return out;
  }

  /** The bytes push has held back and not passed on (a method that may be `DEL`, a chunk line), once. */
  rest(): Buffer {
    const held = this.pending.subarray(this.headPassed);
    this.pending = Buffer.alloc(0);
    this.headPassed = 0;
    return held;
  }

  private passthrough(out: Buffer[], rest: Buffer): Buffer[] {
    this.state = { kind: 'passthrough' };
    if (rest.length > 0) out.push(rest);
    return out;
  }

  /** What follows a head: nothing, a fixed-length body, a chunked body, or (upgrade) raw bytes. */
  private bodyStateAfter(head: Buffer): State {
    const lines = head.toString('latin1').split(/\r?\n/);
    const requestLine = lines[0] ?? '';
    let contentLength: number | null = null;
    let chunked = false;
    let upgrade = false;
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') {
        if (
          !/^\d{1,15}$/.test(value) ||
          (contentLength !== null && contentLength !== Number(value))
        )
          return { kind: 'passthrough' };
        contentLength = Number(value);
      } else if (name === 'transfer-encoding') {
        chunked = value
          .toLowerCase()
          .split(',')
          .map((s) => s.trim())
          .includes('chunked');
      } else if (name === 'upgrade') {
        upgrade = true;
      }
    }
    if (upgrade || requestLine.startsWith('CONNECT ')) return { kind: 'passthrough' };
    if (chunked) return { kind: 'chunk-size' };
    if (contentLength !== null && contentLength > 0)
      return { kind: 'fixed', remaining: contentLength };
    return { kind: 'head' };
  }
}

function assertNever(value: never): never {
  throw new Error(`DelMethodRewriter: unexpected state ${JSON.stringify(value)}`);
}
